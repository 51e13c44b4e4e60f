/**
 * A finished run's report in each format: read from the files its `report-ready` event names,
 * or rendered again from the run's JSON bundle when that format was not written (a PDF only
 * where this machine can print one: chromium and playwright-core installed).
 */

import { existsSync, readFileSync } from "node:fs";
import { DossierError } from "../core/errors.ts";
import type { EventOf } from "../core/events.ts";
import type { ReportDocument } from "../core/report.ts";
import {
  isReportFormat,
  REPORT_FORMATS,
  type ReportFormat,
  type TextReportFormat,
} from "../core/report-formats.ts";
import { formatUnavailable, type PdfEnv } from "../render/format-support.ts";
import { renderReport, renderReportFile } from "../render/index.ts";
import type { RunsApi } from "../runtime/runs-api.ts";

/** Content types of the report formats. */
export const REPORT_CONTENT_TYPES: Record<ReportFormat, string> = {
  md: "text/markdown; charset=utf-8",
  html: "text/html; charset=utf-8",
  json: "application/json; charset=utf-8",
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
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
    if (path && isReportFormat(format) && existsSync(path)) files[format] = path;
  });
  return files;
}

/**
 * The formats a run's report can be downloaded in: those written, and with a JSON bundle every
 * format this machine can render (pdf only where chromium is installed).
 */
export async function reportFormats(
  runs: RunsApi,
  runId: string,
  env: PdfEnv = process.env,
): Promise<ReportFormat[]> {
  const files = await reportFiles(runs, runId);
  return REPORT_FORMATS.filter(
    (f) => files[f] !== undefined || (files.json !== undefined && formatUnavailable(f, env) === null),
  );
}

/** The report of `runId` in a text format; NOT_FOUND when the run has none in that format. */
export async function readReport(runs: RunsApi, runId: string, format: TextReportFormat): Promise<string> {
  const files = await reportFiles(runs, runId);
  const path = files[format];
  if (path) return readFileSync(path, "utf8");
  if (files.json) return renderReport(documentOfBundle(readFileSync(files.json, "utf8")), format);
  throw noReport(runId, format, files);
}

/**
 * The report of `runId` in any format: text for md, html and json, bytes for pdf and docx.
 * NOT_FOUND when the run has none in that format; DEPENDENCY_MISSING for a PDF the run did not
 * write where this machine cannot print one.
 */
export async function readReportFile(
  runs: RunsApi,
  runId: string,
  format: ReportFormat,
  env: PdfEnv = process.env,
): Promise<string | Uint8Array> {
  const files = await reportFiles(runs, runId);
  const path = files[format];
  if (path) return format === "pdf" || format === "docx" ? readFileSync(path) : readFileSync(path, "utf8");
  if (!files.json) throw noReport(runId, format, files);
  const problem = formatUnavailable(format, env);
  if (problem) throw problem;
  return renderReportFile(documentOfBundle(readFileSync(files.json, "utf8")), format, { env });
}

function noReport(runId: string, format: ReportFormat, files: Partial<Record<ReportFormat, string>>) {
  const written = Object.keys(files);
  return new DossierError(
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
    // The claim check (the bundle's `claims`), so a report rendered again keeps its summary line.
    ...(b.claims ? { verification: b.claims } : {}),
  } as ReportDocument;
}
