/**
 * The `academic_search` tool: papers from arXiv and OpenAlex through the tool gateway, the
 * providers tried in order (the first that answers wins), as `web_search` does.
 */

import type { ToolGateway } from "../gateway.ts";
import { filterSources } from "../source-filter.ts";
import type { SearchRequest, ToolResult } from "../types.ts";
import { searchRequestSchema } from "../types.ts";
import type { AcademicProvider, AcademicResult } from "./academic-result.ts";

/** Options of {@link academicSearch}. */
export interface AcademicSearchOptions {
  gateway: ToolGateway;
  /** Providers in fallback order. */
  providers: readonly AcademicProvider[];
  fetch?: typeof globalThis.fetch;
}

/**
 * Searches scholarly literature: each provider's call goes through the gateway under that
 * provider's policy (arXiv: one request every three seconds, see PROVIDER_DEFAULTS). Never
 * throws; with no provider it answers PROVIDER_NOT_CONFIGURED. A source filter is applied to the
 * papers' URLs and dates afterwards (neither provider takes domains).
 */
export function academicSearch(
  request: Partial<SearchRequest> & { query: string },
  options: AcademicSearchOptions,
): Promise<ToolResult<AcademicResult[]>> {
  const parsed = searchRequestSchema.parse(request);
  const fetchFn = options.fetch ?? globalThis.fetch;
  return options.gateway.callFirst(
    options.providers.map((provider) => ({
      tool: "academic_search",
      provider: provider.name,
      args: provider.endpoint ? { ...parsed, endpoint: provider.endpoint } : parsed,
      run: async (signal: AbortSignal) =>
        filterSources(await provider.search(parsed, { signal, fetch: fetchFn }), parsed.sourceFilter).slice(
          0,
          parsed.topK,
        ),
      count: (results: AcademicResult[]) => results.length,
    })),
  );
}
