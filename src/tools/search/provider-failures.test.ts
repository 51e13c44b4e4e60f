import { describe, expect, it } from "vitest";
import type { FakeSearch, FakeSearchProvider } from "../../../test/fake-search/index.ts";
import { callContext, rejectionOf, useFakeSearch } from "../../../test/fake-search/provider-test-kit.ts";
import type { DossierError } from "../../core/errors.ts";
import { type SearchProvider, searchRequestSchema } from "../types.ts";
import { SEARCH_PROVIDER_NAMES, SEARCH_PROVIDER_SPECS } from "./providers.ts";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const KEY = "right-key";

let fake: FakeSearch;
useFakeSearch(
  (started) => {
    fake = started;
  },
  { keys: { tavily: KEY, exa: KEY, brave: KEY, serper: KEY, jina: KEY } },
);

const request = searchRequestSchema.parse({ query: "q", topK: 5 });

function provider(name: FakeSearchProvider, apiKey: string | undefined = KEY): SearchProvider {
  return SEARCH_PROVIDER_SPECS[name].create({
    ...(apiKey === undefined ? {} : { apiKey }),
    baseUrl: fake.baseUrl(name),
    now: () => NOW,
  });
}

function failure(name: FakeSearchProvider, apiKey?: string): Promise<DossierError> {
  return rejectionOf(provider(name, apiKey).search(request, callContext()));
}

const KEYED = SEARCH_PROVIDER_NAMES.filter((n) => n !== "searxng");

describe.each(SEARCH_PROVIDER_NAMES)("%s failures", (name) => {
  it("a truncated JSON answer is a PROVIDER_ERROR", async () => {
    fake.enqueue(name, { kind: "malformed" });
    const error = await failure(name);
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.message).toBe(`${name}: the answer is not JSON`);
  });

  it("JSON of the wrong shape is a PROVIDER_ERROR naming the problem", async () => {
    fake.enqueue(name, { kind: "json", body: { unexpected: true } });
    const error = await failure(name);
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(new RegExp(`^${name}: unexpected answer format \\(`));
  });

  it("a 429 with Retry-After is RATE_LIMITED and carries the wait", async () => {
    fake.enqueue(name, { kind: "error", status: 429, headers: { "retry-after": "3" } });
    const error = await failure(name);
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.retryable).toBe(true);
    expect(error.details.retryAfterMs).toBe(3000);
  });

  it("a 500 is a retryable PROVIDER_ERROR", async () => {
    fake.enqueue(name, { kind: "error", status: 500 });
    const error = await failure(name);
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", retryable: true });
    expect(error.details.status).toBe(500);
  });
});

describe.each(KEYED)("%s keys", (name) => {
  it("a 401 for a wrong key is PROVIDER_NOT_CONFIGURED", async () => {
    const error = await failure(name, "wrong-key");
    expect(error).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED", retryable: false });
    expect(error.details.status).toBe(401);
    expect(fake.requestsFor(name)).toHaveLength(1);
  });

  it("without a key the provider is not called and the error names the variable", async () => {
    const error = await failure(name, "");
    expect(error.code).toBe("PROVIDER_NOT_CONFIGURED");
    expect(error.message).toContain(SEARCH_PROVIDER_SPECS[name].setting);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("lenient parsing", () => {
  it("drops results without an http(s) URL and falls back to the URL as title", async () => {
    fake.enqueue("tavily", {
      kind: "json",
      body: {
        results: [
          { url: "https://a.example/x", content: null },
          { title: "no url", content: "…" },
          { title: "script", url: "javascript:alert(1)", content: "…" },
          { title: "B", url: "https://b.example/", content: "b", published_date: "not a date", score: 0.1 },
        ],
      },
    });
    expect(await provider("tavily").search(request, callContext())).toEqual([
      { title: "https://a.example/x", url: "https://a.example/x", snippet: "" },
      { title: "B", url: "https://b.example/", snippet: "b" },
    ]);
  });

  it("Brave without web results and Serper without organic results are empty, not errors", async () => {
    fake.enqueue("brave", { kind: "json", body: { type: "search", query: { original: "q" } } });
    fake.enqueue("serper", { kind: "json", body: { searchParameters: { q: "q" } } });
    expect(await provider("brave").search(request, callContext())).toEqual([]);
    expect(await provider("serper").search(request, callContext())).toEqual([]);
  });

  it("reads relative ages against the clock", async () => {
    fake.enqueue("serper", {
      kind: "json",
      body: {
        searchParameters: {},
        organic: [{ title: "T", link: "https://t.example/", snippet: "s", date: "3 days ago" }],
      },
    });
    expect(await provider("serper").search(request, callContext())).toEqual([
      { title: "T", url: "https://t.example/", snippet: "s", publishedAt: "2026-11-19" },
    ]);
  });
});

describe("SearXNG without the JSON format", () => {
  it("a 403 is PROVIDER_NOT_CONFIGURED telling to enable the json format", async () => {
    fake.enqueue("searxng", { kind: "error", status: 403, body: "Forbidden" });
    const error = await failure("searxng");
    expect(error.code).toBe("PROVIDER_NOT_CONFIGURED");
    expect(error.message).toContain("settings.yml");
  });
});
