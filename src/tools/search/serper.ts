/**
 * Serper (Google results).
 *
 * Followed: the serper.dev playground / API examples and the LangChain clients
 * (`GoogleSerperAPIWrapper`, langchainjs `Serper` tool), as serper.dev publishes no separate
 * reference: `POST https://google.serper.dev/search`, headers `X-API-KEY: <key>` and
 * `Content-Type: application/json`, JSON body `{ q, num, tbs: "qdr:d|w|m|y", hl, gl }`, answer
 * `{ searchParameters, organic: [{ title, link, snippet, date?, position }], … }`; `date` is a
 * Google display date (`Jan 15, 2024` or `3 days ago`).
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

/** The public Serper API. */
export const DEFAULT_SERPER_BASE_URL = "https://google.serper.dev";

const TBS: Record<TimeRange, string> = { day: "qdr:d", week: "qdr:w", month: "qdr:m", year: "qdr:y" };

const serperAnswerSchema = z.object({
  searchParameters: z.record(z.string(), z.unknown()),
  organic: z
    .array(
      z.object({
        title: z.string().nullish(),
        link: z.string().nullish(),
        snippet: z.string().nullish(),
        date: z.string().nullish(),
      }),
    )
    .default([]),
});

/**
 * A Serper provider. Time ranges map to Google's `tbs` (`qdr:d`, `qdr:w`, `qdr:m`, `qdr:y`);
 * `language` to `hl` (lower-cased); `topK` to `num`.
 */
export function createSerperProvider(options: SearchProviderOptions = {}): SearchProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_SERPER_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "serper",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<SearchResult[]> {
      const key = requireKey("serper", options.apiKey, "SERPER_API_KEY");
      const body: Record<string, unknown> = { q: request.query, num: request.topK };
      if (request.timeRange) body.tbs = TBS[request.timeRange];
      if (request.language) body.hl = request.language.toLowerCase();
      const answer = await fetchJson("serper", context.fetch, endpoint(baseUrl, "/search"), {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
        signal: context.signal,
      });
      const parsed = parseProviderBody("serper", serperAnswerSchema, answer);
      return toSearchResults(
        parsed.organic.map((r) => ({ title: r.title, url: r.link, snippet: r.snippet, published: r.date })),
        now(),
        request.topK,
      );
    },
  };
}
