import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeSearch, type FakeSearchResult, startFakeSearch } from "../../../test/fake-search/index.ts";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { DEFAULT_RETRY_POLICY } from "../../core/retry.ts";
import { openSqliteStore } from "../../store/sqlite-store.ts";
import { ToolGateway } from "../gateway.ts";
import { createSearchProvider } from "./providers.ts";
import { webSearch, webSearchMany } from "./web-search.ts";

const NO_RETRY = { ...DEFAULT_RETRY_POLICY, maxRetries: 0 };

let fake: FakeSearch;
beforeEach(async () => {
  fake = await startFakeSearch();
});
afterEach(async () => {
  await fake.close();
});

const tavily = () => createSearchProvider("tavily", { apiKey: "k", baseUrl: fake.baseUrl("tavily") });
const brave = () => createSearchProvider("brave", { apiKey: "k", baseUrl: fake.baseUrl("brave") });

describe("webSearch through the gateway", () => {
  it("falls back to the next provider, and skips the first once its breaker is open", async () => {
    const clock = instantClock();
    const gateway = new ToolGateway({
      clock,
      defaults: { retry: NO_RETRY, breaker: { failureThreshold: 2, cooldownMs: 60_000 }, cacheTtlMs: 0 },
    });
    fake.enqueue("tavily", { kind: "error", status: 500 }, { kind: "error", status: 500 });
    const providers = [tavily(), brave()];
    const outcomes = [];
    for (const query of ["one", "two", "three"])
      outcomes.push(await webSearch({ query }, { gateway, providers }));

    expect(outcomes.map((o) => o.ok && o.provider)).toEqual(["brave", "brave", "brave"]);
    expect(gateway.isOpen("tavily")).toBe(true);
    // Tavily was called for the first two queries only; the third skipped it (circuit open).
    expect(fake.requestsFor("tavily").map((r) => (r.body as { query: string }).query)).toEqual([
      "one",
      "two",
    ]);
    expect(fake.requestsFor("brave").map((r) => r.query.q)).toEqual(["one", "two", "three"]);
    expect(fake.pending("tavily")).toBe(0);
    expect(gateway.metrics().tools).toEqual([
      expect.objectContaining({ name: "web_search", calls: 6, failures: 3 }),
    ]);
  });

  it("retries a 429 after the server's Retry-After and then succeeds", async () => {
    const clock = instantClock();
    const gateway = new ToolGateway({ clock, defaults: { cacheTtlMs: 0 } });
    fake.enqueue("tavily", { kind: "error", status: 429, headers: { "retry-after": "7" } });
    const outcome = await webSearch({ query: "q", topK: 2 }, { gateway, providers: [tavily()] });
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.value.map((r) => r.url)).toEqual([
      "https://example.com/",
      "https://www.iana.org/help/example-domains",
    ]);
    expect(clock.sleeps).toEqual([7000]);
    expect(fake.requestsFor("tavily")).toHaveLength(2);
  });

  it("answers a repeated call from the cache without an HTTP request", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    try {
      const gateway = new ToolGateway({ clock: instantClock(), cache: store.cache });
      const first = await webSearch({ query: "cached", topK: 1 }, { gateway, providers: [tavily()] });
      const second = await webSearch({ query: "  cached ", topK: 1 }, { gateway, providers: [tavily()] });
      expect(first).toMatchObject({ ok: true, cached: false });
      expect(second).toMatchObject({ ok: true, cached: true });
      expect(second.ok && second.value).toEqual(first.ok && first.value);
      expect(fake.requestsFor("tavily")).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it("a provider that never answers comes back as a TIMEOUT failure", async () => {
    fake.enqueue("tavily", { kind: "hang" });
    const gateway = new ToolGateway({ defaults: { timeoutMs: 100, retry: NO_RETRY, cacheTtlMs: 0 } });
    const outcome = await webSearch({ query: "slow" }, { gateway, providers: [tavily()] });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(outcome.provider).toBe("tavily");
  });

  it("a host that does not resolve comes back as a NETWORK_ERROR failure", async () => {
    const gateway = new ToolGateway({ clock: instantClock(), defaults: { retry: NO_RETRY, cacheTtlMs: 0 } });
    const provider = createSearchProvider("searxng", { baseUrl: "http://nonexistent.invalid" });
    // What fetch rejects with when the resolver knows no such host (no real lookup in tests).
    const unresolvable = (async (input: string | URL | Request) => {
      const { hostname } = new URL(input instanceof Request ? input.url : input);
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: "ENOTFOUND",
          syscall: "getaddrinfo",
          hostname,
        }),
      });
    }) as typeof fetch;
    const outcome = await webSearch({ query: "q" }, { gateway, providers: [provider], fetch: unresolvable });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatchObject({ code: "NETWORK_ERROR", retryable: false });
    expect(!outcome.ok && outcome.error.message).toBe(
      "searxng: getaddrinfo ENOTFOUND nonexistent.invalid (ENOTFOUND)",
    );
  });

  it("reports every provider's failure when the whole chain fails", async () => {
    fake.enqueue("tavily", { kind: "error", status: 400 });
    fake.enqueue("brave", { kind: "malformed" });
    const gateway = new ToolGateway({ clock: instantClock(), defaults: { retry: NO_RETRY, cacheTtlMs: 0 } });
    const outcome = await webSearch({ query: "q" }, { gateway, providers: [tavily(), brave()] });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.message).toMatch(
      /^all providers failed \(tavily: PROVIDER_ERROR; brave: PROVIDER_ERROR\): brave: the answer is not JSON$/,
    );
  });
});

describe("webSearchMany", () => {
  it("merges the queries' results round-robin, deduplicated by normalised URL", async () => {
    const byQuery: Record<string, FakeSearchResult[]> = {
      alpha: [
        { title: "A1", url: "https://www.example.com/a/", snippet: "a" },
        { title: "X1", url: "https://x.org/1?utm_source=news", snippet: "x" },
      ],
      beta: [
        { title: "A2", url: "https://example.com/a", snippet: "a again" },
        { title: "X2", url: "http://x.org/1", snippet: "x again" },
        { title: "Y", url: "https://y.net/", snippet: "y" },
      ],
    };
    await fake.close();
    fake = await startFakeSearch({
      handler: (r) => ({ kind: "results", results: byQuery[r.query.q ?? ""] ?? [] }),
    });
    const gateway = new ToolGateway({ clock: instantClock(), defaults: { cacheTtlMs: 0 } });
    const { results, outcomes } = await webSearchMany(
      ["alpha", "beta"],
      { topK: 5 },
      { gateway, providers: [brave()] },
    );
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(results.map((r) => r.title)).toEqual(["A1", "X1", "Y"]);
    expect(results.map((r) => r.url)).toEqual([
      "https://www.example.com/a/",
      "https://x.org/1?utm_source=news",
      "https://y.net/",
    ]);
  });

  it("keeps the cached results of two endpoints of the same provider apart", async () => {
    const other = await startFakeSearch();
    try {
      const store = openSqliteStore({ home: ":memory:" });
      const gateway = new ToolGateway({ cache: store.cache, defaults: { retry: NO_RETRY } });
      const first = createSearchProvider("tavily", { apiKey: "k", baseUrl: fake.baseUrl("tavily") });
      const second = createSearchProvider("tavily", { apiKey: "k", baseUrl: other.baseUrl("tavily") });
      expect((await webSearch({ query: "same" }, { gateway, providers: [first] })).ok).toBe(true);
      const again = await webSearch({ query: "same" }, { gateway, providers: [second] });
      expect(again.ok && again.cached).toBe(false);
      expect(other.requestsFor("tavily")).toHaveLength(1);
      const cached = await webSearch({ query: "same" }, { gateway, providers: [first] });
      expect(cached.ok && cached.cached).toBe(true);
      expect(fake.requestsFor("tavily")).toHaveLength(1);
      store.close();
    } finally {
      await other.close();
    }
  });
});
