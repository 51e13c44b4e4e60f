/**
 * What the searches of a report's runs saw, for a refresh: the searches to run again (each query
 * once, with the number of results and the time range it was asked with, so the same search is
 * asked again and not a wider one) and every URL any of them returned. A search's tool-end event
 * lists its result URLs; a URL is seen when a search of the run or of a run before it in the
 * report's chain of versions returned it, or when it is a source or a checked page of one of them.
 * A refresh counts as new only a URL none of them saw (compared as dedup keys: `http`/`https`,
 * `www.`, a trailing slash and tracking parameters do not make a URL new).
 */

import type { DossierEvent } from "../core/events.ts";
import type { RunRecord } from "../core/run.ts";
import { normalizeUrl } from "../core/url.ts";
import { type TimeRange, timeRangeSchema } from "../tools/types.ts";
import type { RunsApi } from "./runs-api.ts";

/** One search of a run, as it was asked. */
export interface RunSearch {
  query: string;
  /** Results asked for (the search tool's default when absent). */
  topK?: number;
  timeRange?: TimeRange;
}

/** The searches and seen URLs of the runs behind a report version. */
export interface SearchHistory {
  /** The searches, the first run's first, each query once. */
  searches: RunSearch[];
  /** Every URL a search returned or a run held, as dedup keys ({@link normalizeUrl}). */
  seen: Set<string>;
}

/** Runs followed back along a report's chain of refreshes, at most. */
const MAX_CHAIN = 100;

/** The web searches of a run's events, as asked, each query once. */
export function searchesOf(events: readonly DossierEvent[]): RunSearch[] {
  const out = new Map<string, RunSearch>();
  for (const e of events) {
    if (e.type !== "tool-start" || e.tool !== "web_search") continue;
    const args = (e.args ?? {}) as { query?: unknown; topK?: unknown; timeRange?: unknown };
    if (typeof args.query !== "string" || !args.query.trim() || out.has(args.query)) continue;
    const range = timeRangeSchema.safeParse(args.timeRange);
    out.set(args.query, {
      query: args.query,
      ...(typeof args.topK === "number" && Number.isInteger(args.topK) && args.topK > 0
        ? { topK: args.topK }
        : {}),
      ...(range.success ? { timeRange: range.data } : {}),
    });
  }
  return [...out.values()];
}

/**
 * The URLs a run saw, as dedup keys: every result URL of its searches' tool-end events, the URL
 * of every source it registered and every page a refresh run checked or found.
 */
export function seenUrlsOf(events: readonly DossierEvent[]): Set<string> {
  const seen = new Set<string>();
  for (const e of events) {
    if (e.type === "tool-end" && e.ok) for (const url of e.urls ?? []) seen.add(normalizeUrl(url));
    if (e.type === "source-add") {
      const url = (e.source as { url?: unknown } | undefined)?.url;
      if (typeof url === "string") seen.add(normalizeUrl(url));
    }
    if (e.type === "report-diff") for (const p of e.pages) seen.add(normalizeUrl(p.url));
  }
  return seen;
}

/**
 * The searches and seen URLs of `record` (whose events are `events`) and of every run before it in
 * its report's chain of refreshes (`refreshOf` gives a refresh run's parent). A run of the chain
 * that can no longer be read ends the walk.
 */
export async function searchHistory(
  runs: Pick<RunsApi, "get" | "events">,
  record: RunRecord,
  events: readonly DossierEvent[],
  refreshOf: (record: RunRecord) => string | undefined,
): Promise<SearchHistory> {
  const chain: (readonly DossierEvent[])[] = [events];
  const visited = new Set([record.id]);
  let parentId = refreshOf(record);
  while (parentId && !visited.has(parentId) && chain.length < MAX_CHAIN) {
    visited.add(parentId);
    try {
      const parent = await runs.get(parentId);
      chain.unshift(await runs.events(parent.id));
      parentId = refreshOf(parent);
    } catch {
      break;
    }
  }
  const searches = new Map<string, RunSearch>();
  const seen = new Set<string>();
  for (const list of chain) {
    for (const s of searchesOf(list)) if (!searches.has(s.query)) searches.set(s.query, s);
    for (const url of seenUrlsOf(list)) seen.add(url);
  }
  return { searches: [...searches.values()], seen };
}
