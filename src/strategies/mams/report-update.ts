/**
 * The report agent on one chunk (Eq. 5): it is shown the sources it may cite, numbered
 * (writer-sources.ts), and returns the whole report. Its `<sup>[n]</sup>` citations become the
 * listed passages' evidence ids at once; a number naming no listed source is the call's format
 * error, re-asked once, and dropped if it comes back (`CITATION_UNKNOWN`).
 */

import type { StructuredResult } from "../../llm/structured.ts";
import type { ChunkRun } from "./chunk-update.ts";
import { reportPrompt, reportSystem } from "./prompts.ts";
import { type MamsState, onlyAppended, reportReplySchema } from "./protocol.ts";
import type { ChunkView } from "./state-update.ts";
import { listSources, readSupCitations, renderListing, type SourceListing } from "./writer-sources.ts";

/** The report agent's request for a chunk, and the listing its prompt shows. */
export function reportRequest(run: ChunkRun, before: MamsState, view: ChunkView) {
  const listing = listSources(view.chunk, before.memory, before.report, run.shown);
  return {
    listing,
    system: reportSystem(run.ctx.currentDate, run.language),
    prompt: reportPrompt(
      run.ctx.query,
      before,
      view.chunk,
      view.index,
      view.of,
      renderListing(listing, run.ctx.evidence),
    ),
  };
}

type ReportReply = StructuredResult<{ report: string }>;

/** Asks the report agent with `maxOutputTokens`; an unknown source number is refused once. */
export function askReport(
  run: ChunkRun,
  request: ReturnType<typeof reportRequest>,
  view: ChunkView,
  maxOutputTokens: number,
): Promise<ReportReply | null> {
  const { ctx, act } = run;
  const { listing, system, prompt } = request;
  let refused = false;
  const accept = (value: { report: string }): string | null => {
    const { unknown } = readSupCitations(value.report, listing);
    if (!unknown.length || refused) return null;
    refused = true;
    return `citation(s) ${unknown.map((n) => `<sup>[${n}]</sup>`).join(", ")} name no source of <sources> (numbered 1-${listing.ids.length}): cite only listed numbers.`;
  };
  return act("REPORT_FALLBACK", `report update of chunk ${view.index} failed; report kept`, () =>
    ctx.inScope("report", () =>
      ctx.structured({ role: "writer", schema: reportReplySchema, system, prompt, maxOutputTokens, accept }),
    ),
  );
}

/** Takes the report agent's reply: its report, citations read against the listing, replaces the old one. */
export function applyReport(
  run: ChunkRun,
  before: MamsState,
  view: ChunkView,
  listing: SourceListing,
  reply: ReportReply,
): void {
  const { ctx, state, figures } = run;
  if (!reply.value.report.trim()) return;
  const cites = readSupCitations(reply.value.report, listing);
  figures.citationsRead += cites.read;
  if (cites.unknown.length) {
    figures.citationErrors += cites.unknown.length;
    ctx.emit({
      type: "warning",
      code: "CITATION_UNKNOWN",
      message: `chunk ${view.index}: citation(s) ${cites.unknown.map((n) => `[${n}]`).join(", ")} name no listed source; dropped`,
    });
  }
  const next = cites.text.trim();
  if (onlyAppended(before.report, next)) {
    figures.appendOnlyUpdates++;
    ctx.emit({
      type: "warning",
      code: "REPORT_APPENDED",
      message: `chunk ${view.index}: the report update only appended to the report`,
    });
  }
  state.report = next;
  run.record(
    "report",
    { chunk: view.index, of: view.of, evidence: view.ids, sources: listing.ids },
    { report: reply.value.report, taken: next },
  );
}
