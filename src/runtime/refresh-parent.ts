/**
 * The finished run a refresh starts from: its report body cut into sections, the numbering of
 * its references, the evidence behind each number, its sources and passages (read back from its
 * event log), the searches behind it and every URL they returned, its version in the chain of refreshes and the validators
 * (ETag, Last-Modified) its pages answered with when it fetched them. Checked before any
 * model call: an unknown run is NOT_FOUND; a run that did not complete, or left no readable
 * report, is a CONFLICT.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { RunRecord } from "../core/run.ts";
import type { Evidence, Source } from "../core/source.ts";
import { markdownNumbering } from "./ask-about-parent.ts";
import { earlierEvidence } from "./earlier-evidence.ts";
import { lastReportFiles, readTextOrNothing } from "./last-report-files.ts";
import { type RunSearch, searchHistory } from "./refresh-searches.ts";
import { type BodySection, splitSections } from "./refresh-sections.ts";
import type { RunsApi } from "./runs-api.ts";

/** Name of the refresh strategy (a refresh run's `strategy`). */
export const REFRESH_STRATEGY = "refresh";

/** Validators of a page as last fetched. */
export interface PageValidators {
  etag?: string;
  lastModified?: string;
}

/** A finished run as the start of a refresh. */
export interface RefreshParent {
  record: RunRecord;
  /** Its version: 1 for a research run, n + 1 for a refresh of version n. */
  version: number;
  title: string;
  language: string;
  body: string;
  sections: BodySection[];
  sources: Source[];
  evidence: Evidence[];
  /** The reference number of each cited source, by source id. */
  numberOf: Map<string, number>;
  /** The evidence ids behind each reference number. */
  evidenceByNumber: Record<number, string[]>;
  /** The web searches of the run and of the runs before it in the report's chain, each query once. */
  searches: RunSearch[];
  /** Validators of the pages the run (or the refresh it is) fetched, by URL. */
  validators: Map<string, PageValidators>;
  /**
   * Every URL (as a dedup key) a search of the run or of a run before it returned, or that one of
   * them held as a source or checked: a refresh counts only other URLs as new.
   */
  seenUrls: Set<string>;
}

/** The version of a run: 1, or the version its refresh options record. */
export function versionOf(record: Pick<RunRecord, "strategy" | "options">): number {
  if (record.strategy !== REFRESH_STRATEGY) return 1;
  const version = (record.options.strategyOptions as { version?: unknown } | undefined)?.version;
  return typeof version === "number" ? version : 1;
}

/** The run a refresh run refreshes, or undefined for any other run. */
export function refreshOf(record: Pick<RunRecord, "strategy" | "options">): string | undefined {
  if (record.strategy !== REFRESH_STRATEGY) return undefined;
  const of = (record.options.strategyOptions as { refreshOf?: unknown } | undefined)?.refreshOf;
  return typeof of === "string" ? of : undefined;
}

/** Loads the run `idOrPrefix` as the start of a refresh. */
export async function loadRefreshParent(runs: RunsApi, idOrPrefix: string): Promise<RefreshParent> {
  if (!idOrPrefix.trim()) throw new DossierError("INPUT_INVALID", "refresh needs a run id");
  const record = await runs.get(idOrPrefix);
  if (record.status !== "completed") {
    throw new DossierError(
      "CONFLICT",
      `run ${record.id} is ${record.status}: only a completed run's report can be refreshed`,
      { details: { runId: record.id, status: record.status } },
    );
  }
  const events = await runs.events(record.id);
  const { sources, evidence } = earlierEvidence(events);
  const report = readReport(events, sources, evidence);
  if (!report) {
    throw new DossierError("CONFLICT", `run ${record.id} left no readable report to refresh`, {
      details: { runId: record.id },
    });
  }
  const title = /^# (.+)$/m.exec(report.body)?.[1]?.trim() ?? record.query;
  const history = await searchHistory(runs, record, events, refreshOf);
  return {
    record,
    version: versionOf(record),
    title,
    language: typeof record.options.language === "string" ? record.options.language : "auto",
    body: report.body,
    sections: splitSections(report.body),
    sources,
    evidence,
    numberOf: report.numberOf,
    evidenceByNumber: report.evidenceByNumber,
    searches: history.searches,
    validators: validatorsOf(events),
    seenUrls: history.seen,
  };
}

interface ParentReport {
  body: string;
  numberOf: Map<string, number>;
  evidenceByNumber: Record<number, string[]>;
}

/** The report of the run's last report-ready event: its JSON bundle when written, else its Markdown. */
function readReport(
  events: readonly DossierEvent[],
  sources: readonly Source[],
  evidence: readonly Evidence[],
): ParentReport | undefined {
  const files = lastReportFiles(events);
  if (!files) return undefined;
  const { json, md } = files;
  const known = new Set(sources.map((s) => s.id));
  if (json) {
    const bundle = readJson(json);
    if (bundle) {
      return {
        body: bundle.body,
        numberOf: new Map(
          bundle.references.filter((r) => known.has(r.sourceId)).map((r) => [r.sourceId, r.number]),
        ),
        evidenceByNumber: bundle.evidenceByNumber,
      };
    }
  }
  const text = md === undefined ? undefined : readTextOrNothing(md);
  if (text === undefined) return undefined;
  const numberOf = markdownNumbering(text, sources);
  // A Markdown report does not say which passages stand behind a number: all of its source's.
  const evidenceByNumber: Record<number, string[]> = {};
  for (const [sourceId, n] of numberOf) {
    evidenceByNumber[n] = evidence.filter((e) => e.sourceId === sourceId).map((e) => e.id);
  }
  return { body: markdownBody(text), numberOf, evidenceByNumber };
}

function readJson(path: string):
  | {
      body: string;
      references: { number: number; sourceId: string }[];
      evidenceByNumber: Record<number, string[]>;
    }
  | undefined {
  const text = readTextOrNothing(path);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as {
      report?: { body?: unknown };
      references?: unknown;
      evidenceByNumber?: unknown;
    };
    if (typeof parsed.report?.body !== "string" || !Array.isArray(parsed.references)) return undefined;
    const references = parsed.references.flatMap((r) =>
      r && typeof r.number === "number" && typeof r.sourceId === "string"
        ? [{ number: r.number as number, sourceId: r.sourceId as string }]
        : [],
    );
    const byNumber: Record<number, string[]> = {};
    for (const [n, ids] of Object.entries((parsed.evidenceByNumber ?? {}) as Record<string, unknown>)) {
      if (Array.isArray(ids)) byNumber[Number(n)] = ids.filter((id): id is string => typeof id === "string");
    }
    return { body: parsed.report.body, references, evidenceByNumber: byNumber };
  } catch {
    return undefined;
  }
}

/**
 * The body of a Markdown report: the text before its References section (the last `## `
 * heading followed only by numbered reference lines), without the claim check's closing line.
 */
export function markdownBody(markdown: string): string {
  let text = markdown.replace(/\n---\n\n[^\n]*\n?$/, "\n");
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!/^## \S/.test(lines[i]!)) continue;
    const rest = lines.slice(i + 1).filter((l) => l.trim());
    if (rest.length > 0 && rest.every((l) => /^\d+\. /.test(l))) {
      text = lines.slice(0, i).join("\n");
    }
    break;
  }
  return `${text.replace(/\s+$/, "")}\n`;
}

/**
 * Validators of the pages the run fetched: from its page fetches' tool-end events (any run), and
 * from a refresh run's report-diff event, which comes later and wins.
 */
function validatorsOf(events: readonly DossierEvent[]): Map<string, PageValidators> {
  const out = new Map<string, PageValidators>();
  const urlOf = new Map<string, string>();
  for (const e of events) {
    if (e.type === "tool-start" && e.tool === "fetch_page") {
      const url = (e.args as { url?: unknown } | undefined)?.url;
      if (typeof url === "string") urlOf.set(e.callId, url);
    }
    if (e.type === "tool-end" && e.ok && e.validators && urlOf.has(e.callId)) {
      const { etag, lastModified } = e.validators;
      if (etag || lastModified)
        out.set(urlOf.get(e.callId)!, {
          ...(etag ? { etag } : {}),
          ...(lastModified ? { lastModified } : {}),
        });
    }
    if (e.type !== "report-diff") continue;
    for (const p of e.pages) {
      if (p.etag || p.lastModified) {
        out.set(p.url, {
          ...(p.etag ? { etag: p.etag } : {}),
          ...(p.lastModified ? { lastModified: p.lastModified } : {}),
        });
      }
    }
  }
  return out;
}
