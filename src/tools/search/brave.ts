/**
 * Brave web search.
 *
 * Followed: Brave Search API documentation, "Web search" query parameters and response model
 * (https://api-dashboard.search.brave.com/app/documentation/web-search): `GET
 * https://api.search.brave.com/res/v1/web/search?q=…&count=…&freshness=pd|pw|pm|py&search_lang=…`,
 * headers `Accept: application/json` and `X-Subscription-Token: <key>`; `count` is at most 20;
 * answer `{ type: "search", query, web?: { results: [{ title, url, description, page_age?,
 * age? }] } }` (`web` is absent when there are no web results). Descriptions carry
 * `<strong>` decorations, stripped here.
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

/** The public Brave Search API. */
export const DEFAULT_BRAVE_BASE_URL = "https://api.search.brave.com";
/** Brave returns at most this many web results per request. */
export const BRAVE_MAX_COUNT = 20;

const FRESHNESS: Record<TimeRange, string> = { day: "pd", week: "pw", month: "pm", year: "py" };

const braveAnswerSchema = z.object({
  type: z.literal("search"),
  web: z
    .object({
      results: z
        .array(
          z.object({
            title: z.string().nullish(),
            url: z.string().nullish(),
            description: z.string().nullish(),
            page_age: z.string().nullish(),
            age: z.string().nullish(),
          }),
        )
        .default([]),
    })
    .nullish(),
});

/**
 * Brave's `search_lang` for an ISO 639-1 code. Brave uses its own codes where they differ:
 * `jp` for Japanese, `zh-hans` / `zh-hant` for Chinese, `pt-br` / `pt-pt`, `en-gb`; other
 * region suffixes are dropped.
 */
export function braveSearchLang(language: string): string {
  const lower = language.toLowerCase().replace("_", "-");
  if (lower === "ja" || lower.startsWith("ja-")) return "jp";
  if (lower === "zh-tw" || lower === "zh-hk" || lower === "zh-hant") return "zh-hant";
  if (lower === "zh" || lower.startsWith("zh-")) return "zh-hans";
  if (lower === "pt-br") return "pt-br";
  if (lower === "pt" || lower.startsWith("pt-")) return "pt-pt";
  if (lower === "en-gb") return "en-gb";
  return lower.split("-")[0]!;
}

/**
 * A Brave provider. Time ranges map to `freshness` (`pd`, `pw`, `pm`, `py`); `language` to
 * `search_lang` (see {@link braveSearchLang}); `topK` to `count`, capped at 20.
 */
export function createBraveProvider(options: SearchProviderOptions = {}): SearchProvider {
  const baseUrl = options.baseUrl ?? DEFAULT_BRAVE_BASE_URL;
  const now = options.now ?? Date.now;
  return {
    name: "brave",
    endpoint: baseUrl,
    async search(request: SearchRequest, context: ProviderCallContext): Promise<SearchResult[]> {
      const key = requireKey("brave", options.apiKey, "BRAVE_API_KEY");
      const params = new URLSearchParams({
        q: request.query,
        count: String(Math.min(request.topK, BRAVE_MAX_COUNT)),
      });
      if (request.timeRange) params.set("freshness", FRESHNESS[request.timeRange]);
      if (request.language) params.set("search_lang", braveSearchLang(request.language));
      const url = `${endpoint(baseUrl, "/res/v1/web/search")}?${params}`;
      const answer = await fetchJson("brave", context.fetch, url, {
        method: "GET",
        headers: { accept: "application/json", "x-subscription-token": key },
        signal: context.signal,
      });
      const parsed = parseProviderBody("brave", braveAnswerSchema, answer);
      return toSearchResults(
        (parsed.web?.results ?? []).map((r) => ({
          title: r.title,
          url: r.url,
          snippet: r.description,
          published: r.page_age ?? r.age,
        })),
        now(),
        request.topK,
      );
    },
  };
}
