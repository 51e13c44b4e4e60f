import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type FakeSearch,
  type FakeSearchProvider,
  type FakeSearchResult,
  startFakeSearch,
} from "../../../test/fake-search/index.ts";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { ToolGateway } from "../gateway.ts";
import { type SourceFilterInput, sourceFilterSchema } from "../source-filter.ts";
import { createSearchProvider, SEARCH_PROVIDER_NAMES } from "./providers.ts";
import { webSearch } from "./web-search.ts";

/** The providers' clock: 1 July 2024, noon UTC. */
const NOW = Date.parse("2024-07-01T12:00:00Z");

const RESULTS: FakeSearchResult[] = [
  { title: "New", url: "https://www.example.org/new", snippet: "s", publishedAt: "2024-06-01" },
  { title: "Blog", url: "https://blog.example.org/post", snippet: "s", publishedAt: "2024-06-01" },
  { title: "Look-alike", url: "https://badexample.org/x", snippet: "s", publishedAt: "2024-06-01" },
  { title: "Old", url: "https://example.org/old", snippet: "s", publishedAt: "2023-06-01" },
  { title: "Undated", url: "https://docs.example.org/undated", snippet: "s" },
];

let fake: FakeSearch;
beforeEach(async () => {
  fake = await startFakeSearch({ results: RESULTS });
});
afterEach(async () => {
  await fake.close();
});

const gateway = () => new ToolGateway({ clock: instantClock(), defaults: { cacheTtlMs: 0 } });
const provider = (name: FakeSearchProvider) =>
  createSearchProvider(name, { apiKey: "k", baseUrl: fake.baseUrl(name), now: () => NOW });
const search = (name: FakeSearchProvider, filter: SourceFilterInput, extra: { timeRange?: "week" } = {}) =>
  webSearch(
    { query: "tidal power", topK: 10, sourceFilter: sourceFilterSchema.parse(filter), ...extra },
    { gateway: gateway(), providers: [provider(name)] },
  );

const FILTER = { domains: ["example.org"], excludeDomains: ["blog.example.org"], since: "2024-01-01" };
const SITE_QUERY = "tidal power site:example.org -site:blog.example.org";

/** What each provider must have received: its own parameters for the filter. */
const NATIVE: Record<FakeSearchProvider, (r: FakeSearch["requests"][number]) => void> = {
  tavily: (r) =>
    expect(r.body).toMatchObject({
      query: "tidal power",
      include_domains: ["example.org"],
      exclude_domains: ["blog.example.org"],
      start_date: "2024-01-01",
    }),
  exa: (r) =>
    expect(r.body).toMatchObject({
      query: "tidal power",
      includeDomains: ["example.org"],
      excludeDomains: ["blog.example.org"],
      startPublishedDate: "2024-01-01T00:00:00.000Z",
    }),
  brave: (r) => expect(r.query).toMatchObject({ q: SITE_QUERY, freshness: "2024-01-01to2024-07-01" }),
  serper: (r) => expect(r.body).toMatchObject({ q: SITE_QUERY, tbs: "cdr:1,cd_min:1/1/2024" }),
  searxng: (r) => expect(r.query).toMatchObject({ q: SITE_QUERY, time_range: "year" }),
  jina: (r) => {
    expect(r.queryAll.site).toEqual(["example.org"]);
    // Jina has no date or deny-list parameter: its query is left as it is.
    expect(r.body).toEqual({ q: "tidal power", num: 10 });
  },
};

describe("the source filter on every web search provider", () => {
  it("covers every provider of the table", () => {
    expect([...SEARCH_PROVIDER_NAMES].sort()).toEqual(Object.keys(NATIVE).sort());
  });

  it.each(SEARCH_PROVIDER_NAMES)(
    "%s: gets it as its own parameters, and its results are filtered",
    async (name) => {
      const outcome = await search(name, FILTER);
      expect(fake.requests).toHaveLength(1);
      NATIVE[name](fake.requestsFor(name)[0]!);
      // Whatever the provider answered, only allowed, recent-or-undated results are kept.
      expect(outcome.ok && outcome.value.map((r) => r.url)).toEqual([
        "https://www.example.org/new",
        "https://docs.example.org/undated",
      ]);
    },
  );

  it("several allowed domains: one OR group of site: operators, one site parameter each (Jina)", async () => {
    const filter = { domains: ["a.org", "bücher.de"] };
    await search("serper", filter);
    await search("jina", filter);
    expect(fake.requestsFor("serper")[0]!.body).toMatchObject({
      q: "tidal power (site:a.org OR site:xn--bcher-kva.de)",
    });
    expect(fake.requestsFor("jina")[0]!.queryAll.site).toEqual(["a.org", "xn--bcher-kva.de"]);
  });

  it("Brave: operators that would pass its query limits (400 characters) are left out, results still filtered", async () => {
    const domains = Array.from({ length: 20 }, (_, i) => `site-number-${i}.example.org`);
    const outcome = await search("brave", { domains: [...domains.slice(0, 19), "example.org"] });
    expect(fake.requestsFor("brave")[0]!.query.q).toBe("tidal power");
    expect(outcome.ok && outcome.value.map((r) => r.url)).not.toContain("https://badexample.org/x");
  });

  it("with a time range too, the later start is sent", async () => {
    await search("exa", { since: "2024-01-01" }, { timeRange: "week" });
    await search("brave", { since: "2024-06-30" }, { timeRange: "week" });
    expect(fake.requestsFor("exa")[0]!.body).toMatchObject({
      startPublishedDate: "2024-06-24T12:00:00.000Z",
    });
    expect(fake.requestsFor("brave")[0]!.query).toMatchObject({ freshness: "2024-06-30to2024-07-01" });
  });

  it("a recent since narrows SearXNG's time range (widened to cover it, never narrower)", async () => {
    await search("searxng", { since: "2024-06-20" });
    await search("searxng", { since: "2024-07-01" });
    await search("searxng", { since: "2020-01-01" });
    expect(fake.requestsFor("searxng").map((r) => r.query.time_range)).toEqual(["month", "day", undefined]);
  });

  it("a deny list alone: nothing on the denied domain comes back, the rest is kept", async () => {
    const outcome = await search("jina", { excludeDomains: ["example.org"] });
    expect(outcome.ok && outcome.value.map((r) => r.url)).toEqual(["https://badexample.org/x"]);
  });

  it("without a filter nothing is added to any request", async () => {
    for (const name of SEARCH_PROVIDER_NAMES) await search(name, {});
    const sent = JSON.stringify(fake.requests.map((r) => [r.query, r.body]));
    expect(sent).not.toMatch(/site|domains|start_date|startPublishedDate|freshness|tbs|time_range/i);
  });
});
