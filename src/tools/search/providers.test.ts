import { describe, expect, it } from "vitest";
import type { FakeSearch, FakeSearchResult } from "../../../test/fake-search/index.ts";
import { callContext, useFakeSearch } from "../../../test/fake-search/provider-test-kit.ts";
import { SEARCH_PROVIDERS } from "../../runtime/config.ts";
import { type SearchRequest, type SearchResult, searchRequestSchema } from "../types.ts";
import {
  createSearchProvider,
  createSearchProviders,
  SEARCH_PROVIDER_NAMES,
  searchBaseUrlsFromEnv,
} from "./providers.ts";
import { timeRangeStart } from "./time-range.ts";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const now = () => NOW;
const KEYS = {
  tavily: "tvly-key",
  exa: "exa-key",
  brave: "brave-key",
  serper: "serper-key",
  jina: "jina-key",
};

/** Four results: HTML and entities to strip, a date, an over-long snippet, more than topK. */
const RESULTS: FakeSearchResult[] = [
  {
    title: "Solar <b>panels</b> &amp; you",
    url: "https://solar.example/a",
    snippet: "Cheap <strong>solar</strong> panels &mdash; a&#32;guide",
    publishedAt: "2024-01-15",
  },
  { title: "Second", url: "https://www.other.example/b?x=1", snippet: "Plain snippet." },
  { title: "Third", url: "https://third.example/", snippet: "x".repeat(800) },
  { title: "Fourth", url: "https://fourth.example/", snippet: "four" },
];

/** What every provider makes of RESULTS with topK 3, given how it reports the first date. */
function expected(publishedAt: string): SearchResult[] {
  return [
    {
      title: "Solar panels & you",
      url: "https://solar.example/a",
      snippet: "Cheap solar panels — a guide",
      publishedAt,
    },
    { title: "Second", url: "https://www.other.example/b?x=1", snippet: "Plain snippet." },
    { title: "Third", url: "https://third.example/", snippet: `${"x".repeat(499)}…` },
  ];
}

let fake: FakeSearch;
useFakeSearch(
  (started) => {
    fake = started;
  },
  { results: RESULTS, keys: KEYS },
);

const ctx = callContext;
const request = (over: Partial<SearchRequest> = {}): SearchRequest =>
  searchRequestSchema.parse({ query: "solar panels", topK: 3, timeRange: "week", language: "de", ...over });

describe("Tavily contract", () => {
  it("POSTs /search with a Bearer key, max_results and time_range, and reads results[].content", async () => {
    const provider = createSearchProvider("tavily", {
      apiKey: KEYS.tavily,
      baseUrl: fake.baseUrl("tavily"),
      now,
    });
    const results = await provider.search(request(), ctx());
    const [sent] = fake.requestsFor("tavily");
    expect(sent).toMatchObject({ method: "POST", path: "/search", query: {} });
    expect(sent!.headers.authorization).toBe("Bearer tvly-key");
    expect(sent!.headers["content-type"]).toBe("application/json");
    expect(sent!.body).toEqual({
      query: "solar panels",
      max_results: 3,
      time_range: "week",
      search_depth: "basic",
      topic: "general",
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    });
    expect(results).toEqual(expected("2024-01-15T00:00:00.000Z"));
  });

  it("caps max_results at 20 and sends no time_range when none is asked", async () => {
    const provider = createSearchProvider("tavily", {
      apiKey: KEYS.tavily,
      baseUrl: fake.baseUrl("tavily"),
      now,
    });
    await provider.search(request({ topK: 30, timeRange: undefined }), ctx());
    const body = fake.requestsFor("tavily")[0]!.body as Record<string, unknown>;
    expect(body.max_results).toBe(20);
    expect(body).not.toHaveProperty("time_range");
  });
});

describe("Exa contract", () => {
  it("POSTs /search with x-api-key, numResults, startPublishedDate and contents; reads highlights", async () => {
    const provider = createSearchProvider("exa", { apiKey: KEYS.exa, baseUrl: fake.baseUrl("exa"), now });
    const results = await provider.search(request(), ctx());
    const [sent] = fake.requestsFor("exa");
    expect(sent).toMatchObject({ method: "POST", path: "/search" });
    expect(sent!.headers["x-api-key"]).toBe("exa-key");
    expect(sent!.headers.authorization).toBeUndefined();
    expect(sent!.body).toEqual({
      query: "solar panels",
      type: "auto",
      numResults: 3,
      startPublishedDate: "2026-11-15T12:00:00.000Z",
      contents: { text: { maxCharacters: 1000 }, highlights: { maxCharacters: 500 } },
    });
    expect(results).toEqual(expected("2024-01-15T00:00:00.000Z"));
  });

  it("computes the start of each time range from the clock", () => {
    expect(timeRangeStart("day", NOW)).toBe("2026-11-21T12:00:00.000Z");
    expect(timeRangeStart("week", NOW)).toBe("2026-11-15T12:00:00.000Z");
    expect(timeRangeStart("month", NOW)).toBe("2026-10-22T12:00:00.000Z");
    expect(timeRangeStart("year", NOW)).toBe("2025-11-22T12:00:00.000Z");
  });
});

describe("Brave contract", () => {
  it("GETs /res/v1/web/search with X-Subscription-Token, count, freshness, search_lang; strips <strong>", async () => {
    const provider = createSearchProvider("brave", {
      apiKey: KEYS.brave,
      baseUrl: fake.baseUrl("brave"),
      now,
    });
    const results = await provider.search(request(), ctx());
    const [sent] = fake.requestsFor("brave");
    expect(sent).toMatchObject({ method: "GET", path: "/res/v1/web/search", body: undefined });
    expect(sent!.headers["x-subscription-token"]).toBe("brave-key");
    expect(sent!.headers.accept).toBe("application/json");
    expect(sent!.query).toEqual({ q: "solar panels", count: "3", freshness: "pw", search_lang: "de" });
    expect(results).toEqual(expected("2024-01-15T00:00:00.000Z"));
  });

  it("maps every time range to freshness, caps count at 20 and uses Brave's language codes", async () => {
    const provider = createSearchProvider("brave", {
      apiKey: KEYS.brave,
      baseUrl: fake.baseUrl("brave"),
      now,
    });
    for (const timeRange of ["day", "month", "year"] as const)
      await provider.search(request({ timeRange }), ctx());
    await provider.search(request({ topK: 50, language: "ja" }), ctx());
    await provider.search(request({ timeRange: undefined, language: undefined }), ctx());
    const queries = fake.requestsFor("brave").map((r) => r.query);
    expect(queries.map((q) => q.freshness)).toEqual(["pd", "pm", "py", "pw", undefined]);
    expect(queries[3]).toMatchObject({ count: "20", search_lang: "jp" });
    expect(queries[4]).toEqual({ q: "solar panels", count: "3" });
  });
});

describe("Serper contract", () => {
  it("POSTs /search with X-API-KEY, num, tbs and hl; reads organic[].link and date", async () => {
    const provider = createSearchProvider("serper", {
      apiKey: KEYS.serper,
      baseUrl: fake.baseUrl("serper"),
      now,
    });
    const results = await provider.search(request(), ctx());
    const [sent] = fake.requestsFor("serper");
    expect(sent).toMatchObject({ method: "POST", path: "/search" });
    expect(sent!.headers["x-api-key"]).toBe("serper-key");
    expect(sent!.body).toEqual({ q: "solar panels", num: 3, tbs: "qdr:w", hl: "de" });
    expect(results).toEqual(expected("2024-01-15"));
  });

  it("maps day, month and year to qdr:d, qdr:m, qdr:y", async () => {
    const provider = createSearchProvider("serper", {
      apiKey: KEYS.serper,
      baseUrl: fake.baseUrl("serper"),
      now,
    });
    for (const timeRange of ["day", "month", "year"] as const)
      await provider.search(request({ timeRange }), ctx());
    expect(fake.requestsFor("serper").map((r) => (r.body as { tbs: string }).tbs)).toEqual([
      "qdr:d",
      "qdr:m",
      "qdr:y",
    ]);
  });
});

describe("SearXNG contract", () => {
  it("GETs /search?format=json with time_range and language, no key, and cuts to topK", async () => {
    const provider = createSearchProvider("searxng", { baseUrl: fake.baseUrl("searxng"), now });
    const results = await provider.search(request(), ctx());
    const [sent] = fake.requestsFor("searxng");
    expect(sent).toMatchObject({ method: "GET", path: "/search", body: undefined });
    expect(sent!.headers.authorization).toBeUndefined();
    // SearXNG documents day, month and year only: a week is widened to a month.
    expect(sent!.query).toEqual({ q: "solar panels", format: "json", time_range: "month", language: "de" });
    expect(results).toEqual(expected("2024-01-15T00:00:00.000Z"));
  });

  it("sends day and year as they are and nothing when no range or language is asked", async () => {
    const provider = createSearchProvider("searxng", { baseUrl: `${fake.baseUrl("searxng")}/`, now });
    await provider.search(request({ timeRange: "day" }), ctx());
    await provider.search(request({ timeRange: "year" }), ctx());
    await provider.search(request({ timeRange: undefined, language: undefined }), ctx());
    const queries = fake.requestsFor("searxng").map((r) => r.query);
    expect(queries.map((q) => q.time_range)).toEqual(["day", "year", undefined]);
    expect(queries[2]).toEqual({ q: "solar panels", format: "json" });
  });
});

describe("Jina contract", () => {
  it("POSTs / with a Bearer key, Accept: application/json, no-content, num and hl; no time range", async () => {
    const provider = createSearchProvider("jina", { apiKey: KEYS.jina, baseUrl: fake.baseUrl("jina"), now });
    const results = await provider.search(request(), ctx());
    const [sent] = fake.requestsFor("jina");
    expect(sent).toMatchObject({ method: "POST", path: "/" });
    expect(sent!.headers.authorization).toBe("Bearer jina-key");
    expect(sent!.headers.accept).toBe("application/json");
    expect(sent!.headers["x-respond-with"]).toBe("no-content");
    expect(sent!.body).toEqual({ q: "solar panels", num: 3, hl: "de" });
    expect(results).toEqual(expected("2024-01-15"));
  });
});

describe("createSearchProviders", () => {
  it("lists the same providers as the configuration schema", () => {
    expect([...SEARCH_PROVIDER_NAMES]).toEqual([...SEARCH_PROVIDERS]);
  });

  it("builds configured providers in order and reports the others with the variable to set", () => {
    const { providers, missing } = createSearchProviders({
      search: ["brave", "tavily", "searxng", "exa", "tavily", "serper", "jina"],
      searchKeys: { tavily: "k1", serper: "k2" },
    });
    expect(providers.map((p) => p.name)).toEqual(["tavily", "serper"]);
    expect(missing).toEqual([
      { name: "brave", setting: "BRAVE_API_KEY" },
      { name: "searxng", setting: "SEARXNG_URL" },
      { name: "exa", setting: "EXA_API_KEY" },
      { name: "jina", setting: "JINA_API_KEY" },
    ]);
  });

  it("takes explicit names over the configured list and rejects unknown names", () => {
    const settings = { search: ["tavily"], searchKeys: { tavily: "k" }, searxngUrl: "http://127.0.0.1:1" };
    expect(createSearchProviders(settings, ["searxng"]).providers.map((p) => p.name)).toEqual(["searxng"]);
    expect(() => createSearchProviders(settings, ["google"])).toThrow(
      expect.objectContaining({ code: "INPUT_INVALID" }),
    );
  });

  it("points every provider at the override base URLs", async () => {
    const { providers, missing } = createSearchProviders(
      { search: [...SEARCH_PROVIDER_NAMES], searchKeys: KEYS },
      undefined,
      { providerBaseUrls: Object.fromEntries(SEARCH_PROVIDER_NAMES.map((n) => [n, fake.baseUrl(n)])), now },
    );
    expect(missing).toEqual([]);
    for (const provider of providers) {
      expect(await provider.search(request({ topK: 1 }), ctx())).toHaveLength(1);
    }
    expect(fake.requests.map((r) => r.provider)).toEqual([...SEARCH_PROVIDER_NAMES]);
  });

  it("reads *_BASE_URL variables and rejects values that are not http(s) URLs", () => {
    expect(
      searchBaseUrlsFromEnv({ TAVILY_BASE_URL: "http://127.0.0.1:9/t", JINA_BASE_URL: " ", PATH: "/bin" }),
    ).toEqual({ tavily: "http://127.0.0.1:9/t" });
    expect(() => searchBaseUrlsFromEnv({ EXA_BASE_URL: "ftp://x" })).toThrow(/EXA_BASE_URL/);
  });
});
