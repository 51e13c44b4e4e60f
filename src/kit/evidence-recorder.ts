/**
 * Turning tool observations into Sources and Evidence of the run's registry, with source-add
 * and evidence-add events — the tool memory every writer draws on.
 */

import type { Evidence, Source, SourceInput } from "../core/source.ts";
import type { LocalSearchResult, SearchResult } from "../tools/types.ts";
import type { PageReading } from "./research-tools.ts";
import type { RunContext } from "./run-context.ts";

type Ctx = Pick<RunContext, "evidence" | "emit" | "clock">;

function addSource(ctx: Ctx, input: SourceInput): Source {
  const { source, added } = ctx.evidence.addSource(input);
  if (added) ctx.emit({ type: "source-add", source });
  return source;
}

function addEvidence(
  ctx: Ctx,
  source: Source,
  text: string,
  query: string,
  tool: string,
  callId: string,
): Evidence | null {
  if (!text.trim()) return null;
  const { evidence, added } = ctx.evidence.addEvidence({
    sourceId: source.id,
    text,
    query,
    retrievedBy: { tool, callId },
  });
  if (added) ctx.emit({ type: "evidence-add", evidence });
  return evidence;
}

const now = (ctx: Ctx) => new Date(ctx.clock.now()).toISOString();

/**
 * Records search results: one web source per URL, its snippet as evidence, retrieved by `tool`
 * (`web_search`, or `academic_search` whose snippets are abstracts).
 */
export function recordSearchResults(
  ctx: Ctx,
  results: readonly SearchResult[],
  query: string,
  callId: string,
  tool = "web_search",
): Evidence[] {
  return recordSearchResultsPaired(ctx, results, query, callId, tool).flatMap((p) =>
    p.evidence ? [p.evidence] : [],
  );
}

/**
 * Records search results (see {@link recordSearchResults}) and pairs each result with the
 * evidence its snippet became, if any (an empty or already recorded snippet becomes none).
 */
export function recordSearchResultsPaired<R extends SearchResult>(
  ctx: Ctx,
  results: readonly R[],
  query: string,
  callId: string,
  tool = "web_search",
): { result: R; evidence: Evidence | undefined }[] {
  return results.map((r) => {
    const source = addSource(ctx, {
      kind: "web",
      url: r.url,
      title: r.title || r.url,
      fetchedAt: now(ctx),
      ...(r.publishedAt ? { publishedAt: r.publishedAt } : {}),
    });
    return { result: r, evidence: addEvidence(ctx, source, r.snippet, query, tool, callId) ?? undefined };
  });
}

/** Records a page read for a goal: the page as a source, each verbatim excerpt as evidence. */
export function recordPageReading(ctx: Ctx, reading: PageReading, goal: string, callId: string): Evidence[] {
  const source = addSource(ctx, {
    kind: "web",
    url: reading.finalUrl || reading.url,
    title: reading.title || reading.url,
    fetchedAt: now(ctx),
  });
  const out: Evidence[] = [];
  for (const text of reading.evidence) {
    const e = addEvidence(ctx, source, text, goal, "read_page", callId);
    if (e) out.push(e);
  }
  return out;
}

/** Records local search results: one source per document anchor, the chunk as evidence. */
export function recordLocalResults(
  ctx: Ctx,
  results: readonly LocalSearchResult[],
  query: string,
  callId: string,
): Evidence[] {
  return results.flatMap((r) => recordLocalPassage(ctx, r, r.text, query, callId) ?? []);
}

/** Records one passage (e.g. a sentence) of a local search hit as evidence of the hit's source. */
export function recordLocalPassage(
  ctx: Ctx,
  hit: LocalSearchResult,
  passage: string,
  query: string,
  callId: string,
): Evidence | null {
  const source = addSource(ctx, {
    kind: "local",
    path: hit.path,
    ...(hit.anchor ? { anchor: hit.anchor } : {}),
    title: hit.title || hit.path,
    fetchedAt: now(ctx),
  });
  return addEvidence(ctx, source, passage, query, "local_search", callId);
}
