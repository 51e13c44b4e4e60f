/**
 * The finished run a follow-up question is about: its sources and passages (read back from its
 * event log) and the reference number its report gave each cited source (from the report's JSON
 * rendering when it was written, else from the References section of its Markdown rendering).
 * Checked before any model call: an unknown run is NOT_FOUND, a run that did not complete or
 * left no report is a CONFLICT.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { RunRecord } from "../core/run.ts";
import { type Evidence, type Source, sourceLocator } from "../core/source.ts";
import { earlierEvidence } from "./earlier-evidence.ts";
import { lastReportFiles, readTextOrNothing } from "./last-report-files.ts";
import type { RunsApi } from "./runs-api.ts";

/** A finished run's evidence and its report's numbering of sources. */
export interface ParentEvidence {
  record: RunRecord;
  sources: Source[];
  evidence: Evidence[];
  /** The report's reference number of each cited source, by source id. */
  numberOf: Map<string, number>;
}

/** Loads the run `idOrPrefix` as the subject of a follow-up question. */
export async function loadParentEvidence(runs: RunsApi, idOrPrefix: string): Promise<ParentEvidence> {
  if (!idOrPrefix.trim()) throw new DossierError("INPUT_INVALID", "--about needs a run id");
  const record = await runs.get(idOrPrefix);
  if (record.status !== "completed") {
    throw new DossierError(
      "CONFLICT",
      `run ${record.id} is ${record.status}: follow-up questions are about completed runs`,
      { details: { runId: record.id, status: record.status } },
    );
  }
  const events = await runs.events(record.id);
  const { sources, evidence } = earlierEvidence(events);
  const numberOf = reportNumbering(events, sources);
  if (!numberOf) {
    throw new DossierError("CONFLICT", `run ${record.id} left no readable report to ask about`, {
      details: { runId: record.id },
    });
  }
  return { record, sources, evidence, numberOf };
}

/** The numbering of the run's last report-ready event, or undefined when no rendering is readable. */
function reportNumbering(
  events: readonly DossierEvent[],
  sources: readonly Source[],
): Map<string, number> | undefined {
  const files = lastReportFiles(events);
  if (!files) return undefined;
  const { json, md } = files;
  const known = new Set(sources.map((s) => s.id));
  if (json) {
    const refs = readJsonReferences(json);
    if (refs) return new Map(refs.filter((r) => known.has(r.sourceId)).map((r) => [r.sourceId, r.number]));
  }
  if (md) {
    const text = readTextOrNothing(md);
    if (text !== undefined) return markdownNumbering(text, sources);
  }
  return undefined;
}

function readJsonReferences(path: string): { number: number; sourceId: string }[] | undefined {
  const text = readTextOrNothing(path);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { references?: unknown };
    if (!Array.isArray(parsed.references)) return undefined;
    return parsed.references.flatMap((r) =>
      r && typeof r.number === "number" && typeof r.sourceId === "string"
        ? [{ number: r.number, sourceId: r.sourceId }]
        : [],
    );
  } catch {
    return undefined;
  }
}

/**
 * The numbering read from a Markdown report's References lines (`N. Title. <locator> (accessed …)`),
 * each matched to the source whose locator it names.
 */
export function markdownNumbering(markdown: string, sources: readonly Source[]): Map<string, number> {
  const numberOf = new Map<string, number>();
  const byLocator = new Map(sources.map((s) => [sourceLocator(s), s.id]));
  for (const line of markdown.split("\n")) {
    const m = /^(\d+)\. .*?(?:<([^<>\s]+)>|`+ ?(.+?) ?`+) \([^()]*accessed [\d-]+\)\s*$/.exec(line);
    if (!m) continue;
    const id = byLocator.get(m[2] ?? m[3] ?? "");
    if (id && !numberOf.has(id)) numberOf.set(id, Number(m[1]));
  }
  return numberOf;
}
