/**
 * The searches a refresh asks again and what it learns from them: each search of the report's
 * runs, asked past the cache with the number of results and the time range it was first asked
 * with (a wider search would find pages the run never saw and call them new); the cited passages
 * of a page, each that was only ever a search snippet paired with the snippets the same search
 * returns for the page now; and the result URLs no search of the report's runs ever returned.
 */

import type { Evidence } from "../core/source.ts";
import { normalizeUrl } from "../core/url.ts";
import type { ResearchTools } from "../kit/research-tools.ts";
import type { SearchResult } from "../tools/types.ts";
import type { CitedExcerpt } from "./refresh-pages.ts";
import type { RunSearch } from "./refresh-searches.ts";

/** Tools whose passages are search snippets, never read from the page itself. */
const SNIPPET_TOOLS = new Set(["web_search", "academic_search"]);
/** Results a search is asked for when the run's event does not say. */
const DEFAULT_TOP_K = 5;

/** The results of each search asked again, by query (a search that failed is absent). */
export async function searchAgain(
  tools: Pick<ResearchTools, "webSearch">,
  searches: readonly RunSearch[],
  max: number,
): Promise<Map<string, SearchResult[]>> {
  const out = new Map<string, SearchResult[]>();
  for (const s of searches.slice(0, max)) {
    const r = await tools.webSearch(s.query, {
      topK: s.topK ?? DEFAULT_TOP_K,
      ...(s.timeRange ? { timeRange: s.timeRange } : {}),
      fresh: true,
    });
    if (r.ok) out.set(s.query, r.value);
  }
  return out;
}

/**
 * The cited passages of the page at `url` as a refresh looks for them: a passage that was only
 * ever a search snippet carries the snippets its search (`query`) returns for the page now.
 */
export function citedExcerpts(
  evidence: readonly Evidence[],
  url: string,
  searched: ReadonlyMap<string, readonly SearchResult[]>,
): CitedExcerpt[] {
  const key = normalizeUrl(url);
  return evidence.map((e) => {
    if (!SNIPPET_TOOLS.has(e.retrievedBy.tool)) return { text: e.text };
    const now = e.query === undefined ? [] : (searched.get(e.query) ?? []);
    return {
      text: e.text,
      snippets: now.filter((r) => r.snippet && normalizeUrl(r.url) === key).map((r) => r.snippet),
    };
  });
}

/** The URLs of `results` not in `seen` (dedup keys), each once, in order. */
export function unseenUrls(results: readonly SearchResult[], seen: ReadonlySet<string>): string[] {
  const keys = new Set<string>();
  return results.flatMap((r) => {
    const key = normalizeUrl(r.url);
    if (seen.has(key) || keys.has(key)) return [];
    keys.add(key);
    return [r.url];
  });
}
