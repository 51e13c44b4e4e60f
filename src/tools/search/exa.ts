/**
 * Exa web search.
 *
 * Followed: Exa API reference, "Search" (https://docs.exa.ai/reference/search), the request
 * schema as mirrored by Exa resellers, and the official exa-js SDK README:
 * `POST https://api.exa.ai/search`, header `x-api-key: <key>`, JSON body
 * `{ query, type: "auto", numResults, startPublishedDate (ISO 8601), contents: { text:
 * { maxCharacters }, highlights: { maxCharacters } } }`, answer `{ requestId, results: [{ id,
 * url, title, publishedDate, author, text?, highlights?, summary? }] }`.
 */

import { z } from "zod";
import { fetchJson } from "../http-errors.ts";
import type {
  ProviderCallContext,
  SearchProvider,
  SearchRequest,
  SearchResult,
  TimeRange,
} from "../types.ts";
import {
  endpoint,
  parseProviderBody,
  requireKey,
  type SearchProviderOptions,
  toSearchResults,
} from "./provider-http.ts";

/** The public Exa API. */
export const DEFAULT_EXA_BASE_URL = "https://api.exa.ai";

const exaAnswerSchema = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string().nullish(),
      publishedDate: z.string().nullish(),
      text: z.string().nullish(),
      highlights: z.array(z.string()).nullish(),
      summary: z.string().nullish(),
    }),
  ),
});

/**
 * The start of a time range ending at `nowMs`, as ISO 8601: a day and a week are 24 h and
 * 7 × 24 h back; a month and a year are one calendar month / year back (UTC).
 */
export function timeRangeStart(range: TimeRange, nowMs: number): string {
  const date = new Date(nowMs);
  switch (range) {
    case "day":
      return new Date(nowMs - 86_400_000).toISOString();
    case "week":
      return new Date(nowMs - 7 * 86_400_000).toISOString();
    case "month":
      date.setUTCMonth(date.getUTCMonth() - 1);
      return date.toISOString();
    case "year":
      date.setUTCFullYear(date.getUTCFullYear() - 1);
      return date.toISOString();
  }
}

/**
 * An Exa provider. A time range becomes `startPublishedDate` (see {@link timeRangeStart}). Exa
 * has no result-language parameter, so `language` is not sent. The snippet is the highlights
 * (joined), else the summary, else the start of the page text.
 */
export function createExaProvider(options: SearchProviderOptions = {}): SearchProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_EXA_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "exa",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<SearchResult[]> {
      const key = requireKey("exa", options.apiKey, "EXA_API_KEY");
      const nowMs = now();
      const body: Record<string, unknown> = {
        query: request.query,
        type: "auto",
        numResults: request.topK,
        contents: { text: { maxCharacters: 1000 }, highlights: { maxCharacters: 500 } },
      };
      if (request.timeRange) body.startPublishedDate = timeRangeStart(request.timeRange, nowMs);
      const answer = await fetchJson("exa", context.fetch, endpoint(baseUrl, "/search"), {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
        signal: context.signal,
      });
      const parsed = parseProviderBody("exa", exaAnswerSchema, answer);
      return toSearchResults(
        parsed.results.map((r) => ({
          title: r.title,
          url: r.url,
          snippet: r.highlights?.length ? r.highlights.join(" … ") : (r.summary ?? r.text),
          published: r.publishedDate,
        })),
        nowMs,
        request.topK,
      );
    },
  };
}
