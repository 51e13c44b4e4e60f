/**
 * A finished run's report in each format: read from the files its `report-ready` event names,
 * or rendered again from the run's JSON bundle when that format was not written.
 */

import { existsSync, readFileSync } from "node:fs";
import { DossierError } from "../core/errors.ts";
import type { EventOf } from "../core/events.ts";
import type { ReportDocument } from "../core/report.ts";
import { type ReportFormat, renderReport } from "../render/index.ts";
import type { RunsApi } from "../runtime/runs-api.ts";

/** Content types of the report formats. */
export const REPORT_CONTENT_TYPES: Record<ReportFormat, string> = {
  md: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** The report files of a run by format (those that exist), from its last report-ready event. */
export async function reportFiles(
  runs: RunsApi,
  runId: string,
): Promise<Partial<Record<ReportFormat, string>>> {
  const ready = (await runs.events(runId, { types: ["report-ready"] })).at(-1) as
    | EventOf<"report-ready">
    | undefined;
  const files: Partial<Record<ReportFormat, string>> = {};
  if (!ready?.paths) return files;
  ready.formats.forEach((format, i) => {
    const path = ready.paths?.[i];
    if (path && (format === "md" || format === "html" || format === "json") && existsSync(path))
      files[format] = path;
  });
  return files;
}

/** The formats a run's report can be downloaded in. */
export async function reportFormats(runs: RunsApi, runId: string): Promise<ReportFormat[]> {
  const files = await reportFiles(runs, runId);
  return files.json ? ["md", "html", "json"] : (Object.keys(files) as ReportFormat[]);
}

/** The report of `runId` in `format`; NOT_FOUND when the run has none in that format. */
export async function readReport(runs: RunsApi, runId: string, format: ReportFormat): Promise<string> {
  const files = await reportFiles(runs, runId);
  const path = files[format];
  if (path) return readFileSync(path, "utf8");
  if (files.json) return renderReport(documentOfBundle(readFileSync(files.json, "utf8")), format);
  const written = Object.keys(files);
  throw new DossierError(
    "NOT_FOUND",
    written.length === 0
      ? `run ${runId} has no report (yet)`
      : `run ${runId} has no ${format} report (written: ${written.join(", ")}; ask for json too to render any format)`,
  );
}

/** The report document a JSON bundle holds. */
export function documentOfBundle(text: string): ReportDocument {
  const b = JSON.parse(text) as Record<string, unknown> & {
    report: { markdown: string; body: string };
    evidence: (ReportDocument["evidence"][number] & { cited?: boolean })[];
  };
  if (b.format !== "dossier-report") throw new DossierError("INPUT_INVALID", "not a Dossier report bundle");
  return {
    runId: b.runId,
    query: b.query,
    strategy: b.strategy,
    title: b.title,
    createdAt: b.createdAt,
    currentDate: b.currentDate,
    language: b.language,
    outline: b.outline,
    markdown: b.report.markdown,
    body: b.report.body,
    references: b.references,
    evidenceByNumber: b.evidenceByNumber,
    sources: b.sources,
    evidence: b.evidence.map(({ cited: _cited, ...e }) => e),
    checks: b.checks,
    usage: b.usage,
    stopReason: b.stopReason,
    ...(typeof b.notice === "string" ? { notice: b.notice } : {}),
  } as ReportDocument;
}
