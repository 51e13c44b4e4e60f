/**
 * Jina Search (s.jina.ai).
 *
 * Followed: Jina AI "Search Foundation" API documentation, Search API section
 * (https://jina.ai/reader, "s.reader"): `POST https://s.jina.ai/`, headers `Authorization:
 * Bearer <key>`, `Content-Type: application/json`, `Accept: application/json`, optional
 * `X-Respond-With: no-content` (leave page content out of the answer); JSON body `{ q, num?,
 * hl?, gl? }`; answer `{ code, status, data: [{ title, url, description, content?, date?,
 * usage }], meta? }`.
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

/** The public Jina Search API. */
export const DEFAULT_JINA_BASE_URL = "https://s.jina.ai";

const jinaAnswerSchema = z.object({
  data: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string().nullish(),
      description: z.string().nullish(),
      content: z.string().nullish(),
      date: z.string().nullish(),
    }),
  ),
});

/**
 * A Jina provider. Asks for results without page content (`X-Respond-With: no-content`), so the
 * snippet is the result description. `topK` is sent as `num`, `language` as `hl`. Jina's search
 * API has no time-range parameter: a time range cannot be expressed and is not sent.
 */
export function createJinaProvider(options: SearchProviderOptions = {}): SearchProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_JINA_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "jina",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<SearchResult[]> {
      const key = requireKey("jina", options.apiKey, "JINA_API_KEY");
      const body: Record<string, unknown> = { q: request.query, num: request.topK };
      if (request.language) body.hl = request.language.toLowerCase();
      const answer = await fetchJson("jina", context.fetch, endpoint(baseUrl, "/"), {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json",
          "x-respond-with": "no-content",
        },
        body: JSON.stringify(body),
        signal: context.signal,
      });
      const parsed = parseProviderBody("jina", jinaAnswerSchema, answer);
      return toSearchResults(
        parsed.data.map((r) => ({
          title: r.title,
          url: r.url,
          snippet: r.description || r.content,
          published: r.date,
        })),
        now(),
        request.topK,
      );
    },
  };
}
