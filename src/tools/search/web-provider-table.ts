/**
 * The web search providers as data: one entry each, read by the one HTTP provider
 * (`http-search-provider.ts`). Adding a provider is adding an entry here (and its contract test
 * against a loopback server answering in the provider's own format). Each entry names the
 * documents its wire format follows.
 */

import { z } from "zod";
import type { TimeRange } from "../types.ts";
import {
  boundedSiteQueryParam,
  braveFreshnessRange,
  excludeDomainsParam,
  googleDateRange,
  includeDomainsParam,
  searchStartMs,
  searxngRangeCovering,
  sinceOrRangeParam,
  siteListParam,
  siteQueryParam,
  startDay,
} from "./filter-params.ts";
import { defineSearchProvider } from "./http-search-provider.ts";
import {
  countParam,
  languageParam,
  type ParamFunction,
  queryParam,
  timeRangeParam,
} from "./request-params.ts";

/** A text field a provider may leave out or set to null. */
const text = z.string().nullish();
const lowerCase = (language: string) => language.toLowerCase();

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
 * SearXNG's `time_range` for a time range. The documented values are `day`, `month` and `year`:
 * a week is widened to `month` (never narrowed, so no result of the week is lost).
 */
export const SEARXNG_TIME_RANGE: Readonly<Record<TimeRange, string>> = {
  day: "day",
  week: "month",
  month: "month",
  year: "year",
};

/** SearXNG's `time_range` for the request's start (time range and `since`), widened to cover it. */
const searxngTimeRange: ParamFunction = (request, { nowMs }) => {
  if (!request.sourceFilter?.since) return timeRangeParam(SEARXNG_TIME_RANGE)(request, { nowMs });
  return searxngRangeCovering(searchStartMs(request, nowMs)!, nowMs);
};

/** Exa's `startPublishedDate`: the later of the time range's start and `since`, as ISO 8601. */
const exaStartPublished: ParamFunction = (request, { nowMs }) => {
  const start = searchStartMs(request, nowMs);
  return start === undefined ? undefined : new Date(start).toISOString();
};

/**
 * Tavily. Followed: Tavily API reference, "Search" endpoint
 * (https://docs.tavily.com/documentation/api-reference/endpoint/search) and the request/response
 * types of the official clients (tavily-python `TavilyClient.search`, @tavily/core):
 * `POST https://api.tavily.com/search`, `Authorization: Bearer <key>`, JSON body
 * `{ query, max_results (0–20), time_range: day|week|month|year, search_depth, topic, … }`,
 * answer `{ query, results: [{ title, url, content, score, raw_content?, published_date? }], … }`
 * (`published_date` is given for the `news` topic, as an RFC 1123 date). Time ranges map one to
 * one; Tavily has no result-language parameter (it answers in the query's language). The source
 * filter is sent as `include_domains` / `exclude_domains` (lists of domains) and `start_date`
 * (`YYYY-MM-DD`, results published on or after it).
 */
const tavily = defineSearchProvider({
  name: "tavily",
  baseUrl: "https://api.tavily.com",
  baseUrlSetting: "TAVILY_BASE_URL",
  method: "POST",
  path: "/search",
  credential: { setting: "TAVILY_API_KEY", header: "authorization", prefix: "Bearer " },
  maxResults: 20,
  params: {
    query: queryParam,
    max_results: countParam,
    search_depth: "basic",
    topic: "general",
    include_answer: false,
    include_raw_content: false,
    include_images: false,
    time_range: timeRangeParam((range) => range),
    include_domains: includeDomainsParam,
    exclude_domains: excludeDomainsParam,
    start_date: sinceOrRangeParam(startDay, () => undefined),
  },
  answer: z.object({
    results: z.array(z.object({ title: text, url: text, content: text, published_date: text })),
  }),
  results: ({ results }) =>
    results.map((r) => ({ title: r.title, url: r.url, snippet: r.content, published: r.published_date })),
});

/**
 * Exa. Followed: Exa API reference, "Search" (https://docs.exa.ai/reference/search), the request
 * schema as mirrored by Exa resellers, and the official exa-js SDK README:
 * `POST https://api.exa.ai/search`, header `x-api-key: <key>`, JSON body
 * `{ query, type: "auto", numResults, startPublishedDate (ISO 8601), contents: { text:
 * { maxCharacters }, highlights: { maxCharacters } } }`, answer `{ requestId, results: [{ id,
 * url, title, publishedDate, author, text?, highlights?, summary? }] }`. A time range becomes
 * `startPublishedDate` (`timeRangeStart`; with the source filter's `since`, the later of both);
 * the filter's domains are `includeDomains` / `excludeDomains`. Exa has no result-language
 * parameter. The snippet is the highlights (joined), else the summary, else the start of the
 * page text.
 */
const exa = defineSearchProvider({
  name: "exa",
  baseUrl: "https://api.exa.ai",
  baseUrlSetting: "EXA_BASE_URL",
  method: "POST",
  path: "/search",
  credential: { setting: "EXA_API_KEY", header: "x-api-key" },
  params: {
    query: queryParam,
    type: "auto",
    numResults: countParam,
    contents: { text: { maxCharacters: 1000 }, highlights: { maxCharacters: 500 } },
    startPublishedDate: exaStartPublished,
    includeDomains: includeDomainsParam,
    excludeDomains: excludeDomainsParam,
  },
  answer: z.object({
    results: z.array(
      z.object({
        title: text,
        url: text,
        publishedDate: text,
        text,
        highlights: z.array(z.string()).nullish(),
        summary: text,
      }),
    ),
  }),
  results: ({ results }) =>
    results.map((r) => ({
      title: r.title,
      url: r.url,
      snippet: r.highlights?.length ? r.highlights.join(" … ") : (r.summary ?? r.text),
      published: r.publishedDate,
    })),
});

/**
 * Brave. Followed: Brave Search API documentation, "Web search" query parameters and response
 * model (https://api-dashboard.search.brave.com/app/documentation/web-search): `GET
 * https://api.search.brave.com/res/v1/web/search?q=…&count=…&freshness=pd|pw|pm|py&search_lang=…`,
 * headers `Accept: application/json` and `X-Subscription-Token: <key>`; `count` is at most 20;
 * answer `{ type: "search", query, web?: { results: [{ title, url, description, page_age?,
 * age? }] } }` (`web` is absent when there are no web results). Descriptions carry `<strong>`
 * decorations, stripped with all markup. `language` is sent as {@link braveSearchLang}. Brave has
 * no domain parameter: the source filter's domains are `site:` / `-site:` operators of `q`
 * (Brave's search operators) while `q` stays within Brave's limits (400 characters, 50 words),
 * beyond them only filtered afterwards; its `since` is a custom `freshness` range
 * `YYYY-MM-DDtoYYYY-MM-DD`.
 */
const brave = defineSearchProvider({
  name: "brave",
  baseUrl: "https://api.search.brave.com",
  baseUrlSetting: "BRAVE_BASE_URL",
  method: "GET",
  path: "/res/v1/web/search",
  credential: { setting: "BRAVE_API_KEY", header: "x-subscription-token" },
  maxResults: 20,
  params: {
    q: boundedSiteQueryParam(400, 50),
    count: countParam,
    freshness: sinceOrRangeParam(
      braveFreshnessRange,
      timeRangeParam({ day: "pd", week: "pw", month: "pm", year: "py" }),
    ),
    search_lang: languageParam(braveSearchLang),
  },
  answer: z.object({
    type: z.literal("search"),
    web: z
      .object({
        results: z
          .array(z.object({ title: text, url: text, description: text, page_age: text, age: text }))
          .default([]),
      })
      .nullish(),
  }),
  results: ({ web }) =>
    (web?.results ?? []).map((r) => ({
      title: r.title,
      url: r.url,
      snippet: r.description,
      published: r.page_age ?? r.age,
    })),
});

/**
 * Serper (Google results). Followed: the serper.dev playground / API examples and the LangChain
 * clients (`GoogleSerperAPIWrapper`, langchainjs `Serper` tool), as serper.dev publishes no
 * separate reference: `POST https://google.serper.dev/search`, headers `X-API-KEY: <key>` and
 * `Content-Type: application/json`, JSON body `{ q, num, tbs: "qdr:d|w|m|y", hl, gl }`, answer
 * `{ searchParameters, organic: [{ title, link, snippet, date?, position }], … }`; `date` is a
 * Google display date (`Jan 15, 2024` or `3 days ago`). The source filter's domains are Google's
 * `site:` / `-site:` operators in `q`; its `since` is Google's custom date range in `tbs`
 * (`cdr:1,cd_min:M/D/YYYY`).
 */
const serper = defineSearchProvider({
  name: "serper",
  baseUrl: "https://google.serper.dev",
  baseUrlSetting: "SERPER_BASE_URL",
  method: "POST",
  path: "/search",
  credential: { setting: "SERPER_API_KEY", header: "x-api-key" },
  params: {
    q: siteQueryParam,
    num: countParam,
    tbs: sinceOrRangeParam(
      googleDateRange,
      timeRangeParam({ day: "qdr:d", week: "qdr:w", month: "qdr:m", year: "qdr:y" }),
    ),
    hl: languageParam(lowerCase),
  },
  answer: z.object({
    searchParameters: z.record(z.string(), z.unknown()),
    organic: z.array(z.object({ title: text, link: text, snippet: text, date: text })).default([]),
  }),
  results: ({ organic }) =>
    organic.map((r) => ({ title: r.title, url: r.link, snippet: r.snippet, published: r.date })),
});

/**
 * SearXNG (self-hosted metasearch). Followed: SearXNG documentation, "Search API"
 * (https://docs.searxng.org/dev/search_api.html): `GET <instance>/search?q=…&format=json
 * &time_range=day|month|year&language=…`; the JSON format must be enabled in the instance's
 * `settings.yml` (`search.formats`), otherwise the instance answers 403. Answer `{ query,
 * number_of_results, results: [{ url, title, content, engine, publishedDate?, score, category,
 * … }], answers, suggestions, unresponsive_engines, … }`. No key; no result-count parameter (one
 * page of about 10–20 results, cut to `topK`). The base URL (SEARXNG_URL) is the instance; the
 * default is SearXNG's own address (`searxng-run`, the Docker image). The source filter's
 * domains are `site:` / `-site:` operators in `q` (passed on to the engines that read them); its
 * `since` widens to the narrowest `time_range` that reaches back to it.
 */
const searxng = defineSearchProvider({
  name: "searxng",
  baseUrl: "http://localhost:8080",
  baseUrlSetting: "SEARXNG_URL",
  selfHosted: true,
  method: "GET",
  path: "/search",
  params: {
    q: siteQueryParam,
    format: "json",
    time_range: searxngTimeRange,
    language: languageParam(),
  },
  answer: z.object({
    results: z.array(z.object({ title: text, url: text, content: text, publishedDate: text })),
  }),
  results: ({ results }) =>
    results.map((r) => ({ title: r.title, url: r.url, snippet: r.content, published: r.publishedDate })),
  misconfigured: { 403: "enable the json format in the instance's settings.yml (search.formats)" },
  policy: { concurrency: 16, maxConcurrency: 64 },
});

/**
 * Jina Search (s.jina.ai). Followed: Jina AI "Search Foundation" API documentation, Search API
 * section (https://jina.ai/reader, "s.reader"): `POST https://s.jina.ai/`, headers
 * `Authorization: Bearer <key>`, `Content-Type: application/json`, `Accept: application/json`,
 * optional `X-Respond-With: no-content` (leave page content out of the answer); JSON body `{ q,
 * num?, hl?, gl? }`; answer `{ code, status, data: [{ title, url, description, content?, date?,
 * usage }], meta? }`. Results come without page content, so the snippet is the description.
 * Jina has no time-range parameter: a time range (and the source filter's `since`) is not sent.
 * Its in-site search takes the allowed domains as repeated `site` URL parameters
 * (`?site=a.org&site=b.com`); excluded domains have no parameter (filtered afterwards only).
 */
const jina = defineSearchProvider({
  name: "jina",
  baseUrl: "https://s.jina.ai",
  baseUrlSetting: "JINA_BASE_URL",
  method: "POST",
  path: "/",
  credential: { setting: "JINA_API_KEY", header: "authorization", prefix: "Bearer " },
  headers: { "x-respond-with": "no-content" },
  params: { q: queryParam, num: countParam, hl: languageParam(lowerCase) },
  urlParams: { site: siteListParam },
  answer: z.object({
    data: z.array(z.object({ title: text, url: text, description: text, content: text, date: text })),
  }),
  results: ({ data }) =>
    data.map((r) => ({ title: r.title, url: r.url, snippet: r.description || r.content, published: r.date })),
});

/** Every web search provider, in the order the documentation lists them. */
export const WEB_SEARCH_PROVIDERS = { tavily, exa, brave, serper, searxng, jina } as const;
