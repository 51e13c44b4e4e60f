/**
 * Tavily web search.
 *
 * Followed: Tavily API reference, "Search" endpoint
 * (https://docs.tavily.com/documentation/api-reference/endpoint/search) and the request/response
 * types of the official clients (tavily-python `TavilyClient.search`, @tavily/core):
 * `POST https://api.tavily.com/search`, `Authorization: Bearer <key>`, JSON body
 * `{ query, max_results (0–20), time_range: day|week|month|year, search_depth, topic, … }`,
 * answer `{ query, results: [{ title, url, content, score, raw_content?, published_date? }], … }`
 * (`published_date` is given for the `news` topic, as an RFC 1123 date).
 */

import { z } from "zod";
import { fetchJson } from "../http-errors.ts";
import type { ProviderCallContext, SearchProvider, SearchRequest, SearchResult } from "../types.ts";
import {
  endpoint,
  parseProviderBody,
  requireKey,
  type SearchProviderOptions,
  toSearchResults,
} from "./provider-http.ts";

/** The public Tavily API. */
export const DEFAULT_TAVILY_BASE_URL = "https://api.tavily.com";
/** Tavily returns at most this many results per request. */
export const TAVILY_MAX_RESULTS = 20;

const tavilyAnswerSchema = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string().nullish(),
      content: z.string().nullish(),
      published_date: z.string().nullish(),
    }),
  ),
});

/**
 * A Tavily provider. Time ranges map one to one (`time_range`). Tavily has no result-language
 * parameter, so `language` is not sent (Tavily answers in the query's language).
 */
export function createTavilyProvider(options: SearchProviderOptions = {}): SearchProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_TAVILY_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "tavily",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<SearchResult[]> {
      const key = requireKey("tavily", options.apiKey, "TAVILY_API_KEY");
      const body: Record<string, unknown> = {
        query: request.query,
        max_results: Math.min(request.topK, TAVILY_MAX_RESULTS),
        search_depth: "basic",
        topic: "general",
        include_answer: false,
        include_raw_content: false,
        include_images: false,
      };
      if (request.timeRange) body.time_range = request.timeRange;
      const answer = await fetchJson("tavily", context.fetch, endpoint(baseUrl, "/search"), {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify(body),
        signal: context.signal,
      });
      const parsed = parseProviderBody("tavily", tavilyAnswerSchema, answer);
      return toSearchResults(
        parsed.results.map((r) => ({
          title: r.title,
          url: r.url,
          snippet: r.content,
          published: r.published_date,
        })),
        now(),
        request.topK,
      );
    },
  };
}
