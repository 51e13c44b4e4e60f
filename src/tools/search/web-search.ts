/**
 * The `web_search` tool: one request through a fallback chain of providers, or several
 * queries merged and deduplicated.
 */

import type { ToolGateway } from "../gateway.ts";
import { filterSources } from "../source-filter.ts";
import type { SearchProvider, SearchRequest, SearchResult, ToolResult } from "../types.ts";
import { searchRequestSchema } from "../types.ts";
import { mergeSearchResults } from "./merge.ts";

/** Options of {@link webSearch}. */
export interface WebSearchOptions {
  gateway: ToolGateway;
  /** Providers in fallback order. */
  providers: readonly SearchProvider[];
  fetch?: typeof globalThis.fetch;
  /** Ask the providers again instead of answering from the tool cache (a refresh's searches). */
  fresh?: boolean;
}

/**
 * Searches the web: the first provider of the chain that answers wins. Never throws. With a
 * source filter, every provider's results are checked against it (whether or not the provider
 * took it as a parameter): a result on a host it does not allow, or published before its date,
 * is dropped.
 */
export function webSearch(
  request: Partial<SearchRequest> & { query: string },
  options: WebSearchOptions,
): Promise<ToolResult<SearchResult[]>> {
  const parsed = searchRequestSchema.parse(request);
  const fetchFn = options.fetch ?? globalThis.fetch;
  return options.gateway.callFirst(
    options.providers.map((provider) => ({
      tool: "web_search",
      provider: provider.name,
      args: provider.endpoint ? { ...parsed, endpoint: provider.endpoint } : parsed,
      run: async (signal: AbortSignal) =>
        filterSources(await provider.search(parsed, { signal, fetch: fetchFn }), parsed.sourceFilter).slice(
          0,
          parsed.topK,
        ),
      count: (results: SearchResult[]) => results.length,
      urls: (results: SearchResult[]) => results.map((r) => r.url),
      ...(options.fresh ? { cache: false } : {}),
    })),
  );
}

/** Result of {@link webSearchMany}. */
export interface MultiSearchResult {
  /** Merged, deduplicated results. */
  results: SearchResult[];
  /** Per-query outcomes, in the order of the queries. */
  outcomes: ToolResult<SearchResult[]>[];
}

/** Runs several queries concurrently and merges their results. Never throws. */
export async function webSearchMany(
  queries: readonly string[],
  request: Omit<Partial<SearchRequest>, "query">,
  options: WebSearchOptions,
): Promise<MultiSearchResult> {
  const outcomes = await Promise.all(queries.map((query) => webSearch({ ...request, query }, options)));
  const lists = outcomes.map((o) => (o.ok ? o.value : []));
  return { results: mergeSearchResults(lists), outcomes };
}
