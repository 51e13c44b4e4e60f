/**
 * SearXNG (self-hosted metasearch).
 *
 * Followed: SearXNG documentation, "Search API" (https://docs.searxng.org/dev/search_api.html):
 * `GET <instance>/search?q=…&format=json&time_range=day|month|year&language=…`; the JSON format
 * must be enabled in the instance's `settings.yml` (`search.formats`), otherwise the instance
 * answers 403. Answer `{ query, number_of_results, results: [{ url, title, content, engine,
 * publishedDate?, score, category, … }], answers, suggestions, unresponsive_engines, … }`.
 * SearXNG has no result-count parameter: it returns one page (about 10–20 results), cut to
 * `topK` here.
 */

import { z } from "zod";
import { DossierError, isDossierError } from "../../core/errors.ts";
import { fetchJson } from "../http-errors.ts";
import type {
  ProviderCallContext,
  SearchProvider,
  SearchRequest,
  SearchResult,
  TimeRange,
} from "../types.ts";
import { endpoint, parseProviderBody, type SearchProviderOptions, toSearchResults } from "./provider-http.ts";

/** SearXNG's own default address (`searxng-run`, the Docker image). Set SEARXNG_URL instead. */
export const DEFAULT_SEARXNG_BASE_URL = "http://localhost:8080";

/**
 * SearXNG's `time_range` for a time range. The documented values are `day`, `month` and `year`:
 * a week is widened to `month` (never narrowed, so no result of the week is lost).
 */
export const SEARXNG_TIME_RANGE: Record<TimeRange, string> = {
  day: "day",
  week: "month",
  month: "month",
  year: "year",
};

const searxngAnswerSchema = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string().nullish(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
    }),
  ),
});

/**
 * A SearXNG provider. Needs no key; `baseUrl` is the instance (SEARXNG_URL). `language` is sent
 * as `language`; time ranges as in {@link SEARXNG_TIME_RANGE}.
 */
export function createSearxngProvider(options: SearchProviderOptions = {}): SearchProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_SEARXNG_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "searxng",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<SearchResult[]> {
      const params = new URLSearchParams({ q: request.query, format: "json" });
      if (request.timeRange) params.set("time_range", SEARXNG_TIME_RANGE[request.timeRange]);
      if (request.language) params.set("language", request.language);
      const url = `${endpoint(baseUrl, "/search")}?${params}`;
      let answer: unknown;
      try {
        answer = await fetchJson("searxng", context.fetch, url, {
          method: "GET",
          headers: { accept: "application/json" },
          signal: context.signal,
        });
      } catch (error) {
        if (isDossierError(error) && error.details.status === 403) {
          throw new DossierError(
            "PROVIDER_NOT_CONFIGURED",
            `searxng: HTTP 403 from ${baseUrl} — enable the json format in the instance's settings.yml (search.formats)`,
            { retryable: false, cause: error, details: error.details },
          );
        }
        throw error;
      }
      const parsed = parseProviderBody("searxng", searxngAnswerSchema, answer);
      return toSearchResults(
        parsed.results.map((r) => ({
          title: r.title,
          url: r.url,
          snippet: r.content,
          published: r.publishedDate,
        })),
        now(),
        request.topK,
      );
    },
  };
}
