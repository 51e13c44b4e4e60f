/**
 * The wire formats of the fake search server: each provider's route, where it reads its key
 * and its count, what it rejects, and its answer and error bodies, after each provider's API
 * documentation (see the provider adapters in src/tools/search/ for the documents followed).
 */

import type { FakeSearchProvider, FakeSearchRequest, FakeSearchResult } from "./types.ts";

/** Example results served by default. */
export const DEFAULT_FAKE_RESULTS: FakeSearchResult[] = [
  {
    title: "Example Domain",
    url: "https://example.com/",
    snippet: "This domain is for use in illustrative examples in documents.",
    publishedAt: "2024-01-15",
  },
  {
    title: "IANA — Example domains",
    url: "https://www.iana.org/help/example-domains",
    snippet: "Example domains.",
  },
];

/** True when `request` hits the provider's search endpoint with the right method. */
export function isSearchRoute(provider: FakeSearchProvider, request: FakeSearchRequest): boolean {
  const { method, path } = request;
  switch (provider) {
    case "tavily":
    case "exa":
    case "serper":
      return method === "POST" && path === "/search";
    case "brave":
      return method === "GET" && path === "/res/v1/web/search";
    case "searxng":
      return (method === "GET" || method === "POST") && (path === "/search" || path === "/");
    case "jina":
      return (method === "POST" || method === "GET") && path === "/";
  }
}

function field(body: unknown, name: string): unknown {
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** The key the request carries, read where the provider reads it. */
export function presentedKey(provider: FakeSearchProvider, request: FakeSearchRequest): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "")?.[1];
  switch (provider) {
    case "tavily": {
      const inBody = field(request.body, "api_key");
      return bearer ?? (typeof inBody === "string" ? inBody : undefined);
    }
    case "exa":
      return request.headers["x-api-key"];
    case "brave":
      return request.headers["x-subscription-token"];
    case "serper":
      return request.headers["x-api-key"];
    case "jina":
      return bearer;
    case "searxng":
      return undefined;
  }
}

/** The query text the request asks for. */
export function queryText(provider: FakeSearchProvider, request: FakeSearchRequest): unknown {
  switch (provider) {
    case "tavily":
    case "exa":
      return field(request.body, "query");
    case "serper":
      return field(request.body, "q");
    case "jina":
      return request.method === "GET" ? request.query.q : field(request.body, "q");
    case "brave":
    case "searxng":
      return request.query.q;
  }
}

/** The number of results the request asks for, when the provider has such a parameter. */
export function requestedCount(provider: FakeSearchProvider, request: FakeSearchRequest): number | undefined {
  const raw = (() => {
    switch (provider) {
      case "tavily":
        return field(request.body, "max_results") ?? 5;
      case "exa":
        return field(request.body, "numResults") ?? 10;
      case "brave":
        return request.query.count ?? 20;
      case "serper":
        return field(request.body, "num") ?? 10;
      case "jina":
        return field(request.body, "num");
      case "searxng":
        return undefined;
    }
  })();
  const n = Number(raw);
  return raw === undefined || !Number.isFinite(n) ? undefined : n;
}

/** The provider's error body for `status`. */
export function errorBody(provider: FakeSearchProvider, status: number, message: string): unknown {
  switch (provider) {
    case "tavily":
      return { detail: { error: message } };
    case "exa":
      return { requestId: "fake-request", error: message, tag: status === 401 ? "INVALID_API_KEY" : "ERROR" };
    case "brave":
      return {
        type: "ErrorResponse",
        error: {
          id: "fake-error",
          status,
          code: status === 401 ? "SUBSCRIPTION_TOKEN_INVALID" : "ERROR",
          detail: message,
        },
        time: 0,
      };
    case "serper":
      return { message, statusCode: status };
    case "jina":
      return {
        data: null,
        code: status,
        name: "FakeError",
        status: status * 100,
        message,
        readableMessage: message,
      };
    case "searxng":
      return message;
  }
}

/** The provider's complaint about a malformed request, or undefined when it is acceptable. */
export function requestProblem(
  provider: FakeSearchProvider,
  request: FakeSearchRequest,
): { status: number; message: string } | undefined {
  const q = queryText(provider, request);
  if (typeof q !== "string" || q.trim() === "") {
    return { status: provider === "brave" ? 422 : 400, message: "fake-search: the query is missing" };
  }
  if (provider === "searxng" && request.query.format !== "json") {
    return { status: 403, message: "Forbidden" };
  }
  return undefined;
}

const utcDate = (iso: string, month: "short" | "long") =>
  new Date(iso).toLocaleDateString("en-US", { month, day: "numeric", year: "numeric", timeZone: "UTC" });
const noZone = (iso: string) => new Date(iso).toISOString().slice(0, 19);

/** `publishedAt` in the provider's date format (as given when it is not a date). */
function renderDate(provider: FakeSearchProvider, publishedAt: string): Record<string, string> {
  if (Number.isNaN(Date.parse(publishedAt))) {
    const key = {
      tavily: "published_date",
      exa: "publishedDate",
      brave: "page_age",
      serper: "date",
      searxng: "publishedDate",
      jina: "date",
    }[provider];
    return { [key]: publishedAt };
  }
  switch (provider) {
    case "tavily":
      return { published_date: new Date(publishedAt).toUTCString() };
    case "exa":
      return { publishedDate: new Date(publishedAt).toISOString() };
    case "brave":
      return { page_age: noZone(publishedAt), age: utcDate(publishedAt, "long") };
    case "serper":
    case "jina":
      return { date: utcDate(publishedAt, "short") };
    case "searxng":
      return { publishedDate: noZone(publishedAt) };
  }
}

/** The provider's answer carrying `results` for `request`. */
export function resultsBody(
  provider: FakeSearchProvider,
  request: FakeSearchRequest,
  results: readonly FakeSearchResult[],
): unknown {
  const q = String(queryText(provider, request));
  const date = (r: FakeSearchResult) => (r.publishedAt ? renderDate(provider, r.publishedAt) : {});
  switch (provider) {
    case "tavily":
      return {
        query: q,
        follow_up_questions: null,
        answer: null,
        images: [],
        results: results.map((r, i) => ({
          title: r.title,
          url: r.url,
          content: r.snippet,
          score: 1 - i / 100,
          raw_content: null,
          ...date(r),
        })),
        response_time: 0.42,
        request_id: "fake-request",
      };
    case "exa":
      return {
        requestId: "fake-request",
        resolvedSearchType: "neural",
        results: results.map((r, i) => ({
          id: r.url,
          title: r.title,
          url: r.url,
          author: null,
          score: 1 - i / 100,
          text: `${r.snippet} (page text)`,
          highlights: [r.snippet],
          highlightScores: [0.5],
          ...date(r),
        })),
        costDollars: { total: 0.005 },
      };
    case "brave":
      return {
        type: "search",
        query: { original: q, more_results_available: false },
        mixed: { type: "mixed", main: results.map((_, i) => ({ type: "web", index: i, all: false })) },
        web: {
          type: "search",
          family_friendly: true,
          results: results.map((r) => ({
            type: "search_result",
            title: r.title,
            url: r.url,
            description: r.snippet,
            is_source_local: false,
            is_source_both: false,
            language: "en",
            family_friendly: true,
            meta_url: { scheme: "https", netloc: new URL(r.url).host, hostname: new URL(r.url).hostname },
            ...date(r),
          })),
        },
      };
    case "serper":
      return {
        searchParameters: { q, type: "search", engine: "google", ...(request.body as object) },
        organic: results.map((r, i) => ({
          title: r.title,
          link: r.url,
          snippet: r.snippet,
          position: i + 1,
          ...date(r),
        })),
        credits: 1,
      };
    case "searxng":
      return {
        query: q,
        number_of_results: 0,
        results: results.map((r, i) => ({
          url: r.url,
          title: r.title,
          content: r.snippet,
          engine: "fake",
          parsed_url: ["https", new URL(r.url).host, new URL(r.url).pathname, "", "", ""],
          template: "default.html",
          engines: ["fake"],
          positions: [i + 1],
          score: 1 / (i + 1),
          category: "general",
          publishedDate: null,
          ...date(r),
        })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      };
    case "jina": {
      const withContent = request.headers["x-respond-with"] !== "no-content";
      return {
        code: 200,
        status: 20000,
        data: results.map((r) => ({
          title: r.title,
          url: r.url,
          description: r.snippet,
          ...(withContent ? { content: `${r.snippet} (page content)` } : {}),
          ...date(r),
          usage: { tokens: withContent ? 1000 : 10 },
        })),
        meta: { usage: { tokens: results.length * (withContent ? 1000 : 10) } },
      };
    }
  }
}
