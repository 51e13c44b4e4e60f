import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { BudgetLedger } from "../core/budget.ts";
import { DossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";
import { createMemoryJournal } from "../core/journal.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import { type GatewayOptions, ToolGateway } from "./gateway.ts";

const fastRetry = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000, jitter: 0, maxRetryAfterMs: 60_000 };

function setup(options: Partial<GatewayOptions> = {}) {
  const events: EventInput[] = [];
  const clock = instantClock();
  const gateway = new ToolGateway({
    clock,
    emit: (e) => events.push(e),
    random: () => 0.5,
    defaults: { retry: fastRetry },
    ...options,
  });
  return { gateway, events, clock };
}

const rateLimited = (ms: number) =>
  new DossierError("RATE_LIMITED", "429", { retryable: true, details: { retryAfterMs: ms } });
const serverError = () => new DossierError("PROVIDER_ERROR", "HTTP 500", { retryable: true });

describe("ToolGateway", () => {
  it("retries a rate-limited call after its Retry-After and succeeds", async () => {
    const { gateway, clock, events } = setup();
    let calls = 0;
    const result = await gateway.call({
      tool: "web_search",
      provider: "p",
      args: { query: "q" },
      run: async () => {
        if (++calls === 1) throw rateLimited(4000);
        return ["r"];
      },
      count: (v) => v.length,
    });
    expect(result).toMatchObject({ ok: true, value: ["r"], cached: false, provider: "p" });
    expect(calls).toBe(2);
    expect(clock.sleeps).toEqual([4000]);
    // The 429 also halves the provider's calls at once (adaptive limit), recorded as a warning.
    expect(events.map((e) => e.type)).toEqual(["tool-start", "warning", "tool-end"]);
    expect(events[1]).toMatchObject({ code: "PROVIDER_BACKOFF" });
    expect(events[2]).toMatchObject({ ok: true, cached: false, resultCount: 1, tool: "web_search" });
  });

  it("records a fetched page's validators on its tool-end event, and none when it has none", async () => {
    const { gateway, events } = setup();
    const page = (etag?: string) =>
      gateway.call({
        tool: "fetch_page",
        provider: "http",
        args: { url: `https://a.example/${etag ?? "none"}` },
        cache: false,
        run: async () => ({ etag }),
        validators: (v) => (v.etag ? { etag: v.etag } : undefined),
      });
    await page('"r1"');
    await page();
    const ends = events.filter((e) => e.type === "tool-end");
    expect(ends[0]).toMatchObject({ ok: true, validators: { etag: '"r1"' } });
    expect(ends[1]).not.toHaveProperty("validators");
  });

  it("returns failures as structured observations, never throwing", async () => {
    const { gateway } = setup();
    const result = await gateway.call({
      tool: "fetch_page",
      provider: "http",
      args: {},
      run: async () => {
        throw new TypeError("something broke");
      },
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.error).toEqual({ code: "TOOL_ERROR", message: "something broke", retryable: false });
  });

  it("opens the breaker after consecutive failures, skips the provider, and half-opens after the cool-down", async () => {
    const { gateway, clock } = setup({
      defaults: {
        retry: { ...fastRetry, maxRetries: 0 },
        breaker: { failureThreshold: 3, cooldownMs: 10_000 },
      },
    });
    let calls = 0;
    const failing = () =>
      gateway.call({
        tool: "web_search",
        provider: "flaky",
        args: { n: calls },
        cache: false,
        run: async () => {
          calls++;
          throw serverError();
        },
      });
    for (let i = 0; i < 3; i++) expect((await failing()).ok).toBe(false);
    expect(calls).toBe(3);
    expect(gateway.isOpen("flaky")).toBe(true);
    const refused = await failing();
    expect(refused).toMatchObject({ ok: false, error: { code: "CIRCUIT_OPEN" } });
    expect(calls).toBe(3);

    clock.advance(10_000);
    const trial = await gateway.call({
      tool: "web_search",
      provider: "flaky",
      args: {},
      cache: false,
      run: async () => "back",
    });
    expect(trial).toMatchObject({ ok: true, value: "back" });
    expect(gateway.isOpen("flaky")).toBe(false);
  });

  it("falls back to the next provider in the chain when one fails", async () => {
    const { gateway, events } = setup({ defaults: { retry: { ...fastRetry, maxRetries: 0 } } });
    const result = await gateway.callFirst([
      { tool: "web_search", provider: "a", args: {}, run: async () => Promise.reject(serverError()) },
      { tool: "web_search", provider: "b", args: {}, run: async () => ["from b"] },
    ]);
    expect(result).toMatchObject({ ok: true, provider: "b", value: ["from b"] });
    const ends = events.filter((e) => e.type === "tool-end");
    expect(ends.map((e) => (e.type === "tool-end" ? [e.provider, e.ok] : []))).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });

  it("reports every provider's failure when the whole chain fails", async () => {
    const { gateway } = setup({ defaults: { retry: { ...fastRetry, maxRetries: 0 } } });
    const result = await gateway.callFirst([
      { tool: "web_search", provider: "a", args: {}, run: async () => Promise.reject(serverError()) },
      {
        tool: "web_search",
        provider: "b",
        args: {},
        run: async () => Promise.reject(new DossierError("NETWORK_ERROR", "down", { retryable: true })),
      },
    ]);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("NETWORK_ERROR");
      expect(result.error.message).toContain("a: PROVIDER_ERROR; b: NETWORK_ERROR");
    }
  });

  it("serves a repeated call from the cache without running it, keyed by normalised arguments", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    const { gateway, events } = setup({ cache: store.cache });
    let runs = 0;
    const call = (query: string) =>
      gateway.call({
        tool: "web_search",
        provider: "p",
        args: { query, topK: 5 },
        run: async () => [`run ${++runs}`],
      });
    const first = await call("solar  power");
    const second = await call(" solar power ");
    expect(first).toMatchObject({ ok: true, cached: false, value: ["run 1"] });
    expect(second).toMatchObject({ ok: true, cached: true, value: ["run 1"] });
    expect(runs).toBe(1);
    expect(
      events.filter((e) => e.type === "tool-end").map((e) => (e.type === "tool-end" ? e.cached : null)),
    ).toEqual([false, true]);
    const m = gateway.metrics();
    expect(m.tools).toEqual([
      {
        name: "web_search",
        calls: 2,
        share: 1,
        failures: 0,
        failureRate: 0,
        cacheHits: 1,
        liveLatencyMs: expect.any(Number),
      },
    ]);
    store.close();
  });

  it("lets an identical call made while the first is under way wait for it instead of asking again", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    const { gateway, events } = setup({ cache: store.cache });
    let runs = 0;
    let release: (() => void) | undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const call = (query: string) =>
      gateway.call({
        tool: "web_search",
        provider: "p",
        args: { query },
        run: async () => {
          runs++;
          await gate;
          return [`answer to ${query}`];
        },
      });
    const first = call("same query");
    const second = call("same  query");
    const other = call("another query");
    await new Promise((r) => setTimeout(r, 10));
    // Both distinct calls are under way; the identical one waits for the first.
    expect(runs).toBe(2);
    release!();
    expect(await first).toMatchObject({ ok: true, cached: false, value: ["answer to same query"] });
    expect(await second).toMatchObject({ ok: true, cached: true, value: ["answer to same query"] });
    expect(await other).toMatchObject({ ok: true, cached: false });
    expect(runs).toBe(2);
    expect(events.filter((e) => e.type === "tool-start")).toHaveLength(3);
    store.close();
  });

  it("makes its own call when the identical call it waited for fails", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    const { gateway } = setup({ cache: store.cache, defaults: { retry: { ...fastRetry, maxRetries: 0 } } });
    let runs = 0;
    let release: (() => void) | undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const call = () =>
      gateway.call({
        tool: "web_search",
        provider: "p",
        args: { query: "q" },
        run: async () => {
          const n = ++runs;
          await gate;
          if (n === 1) throw new DossierError("INPUT_INVALID", "bad request for this one");
          return ["second try"];
        },
      });
    const first = call();
    const second = call();
    await new Promise((r) => setTimeout(r, 10));
    expect(runs).toBe(1);
    release!();
    expect(await first).toMatchObject({ ok: false });
    expect(await second).toMatchObject({ ok: true, cached: false, value: ["second try"] });
    expect(runs).toBe(2);
    store.close();
  });

  it("expires cached results after the TTL", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    const { gateway, clock } = setup({
      cache: store.cache,
      defaults: { retry: fastRetry, cacheTtlMs: 1000 },
    });
    let runs = 0;
    const call = () => gateway.call({ tool: "t", provider: "p", args: { a: 1 }, run: async () => ++runs });
    await call();
    clock.advance(999);
    expect((await call()).ok && runs).toBe(1);
    clock.advance(1);
    await call();
    expect(runs).toBe(2);
    store.close();
  });

  it("times out a call that does not answer and says so", async () => {
    const { gateway } = setup({ defaults: { timeoutMs: 50, retry: { ...fastRetry, maxRetries: 0 } } });
    const result = await gateway.call({
      tool: "fetch_page",
      provider: "slow",
      args: {},
      run: () => new Promise(() => {}),
    });
    expect(result).toMatchObject({ ok: false, error: { code: "TIMEOUT", retryable: true } });
  });

  it("keeps at most `concurrency` calls of a provider in flight", async () => {
    const { gateway } = setup({ providers: { p: { concurrency: 2 } } });
    let inFlight = 0;
    let peak = 0;
    const run = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return true;
    };
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        gateway.call({ tool: "t", provider: "p", args: { i }, cache: false, run }),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(peak).toBe(2);
  });

  it("counts live calls against the tool-call budget and refuses beyond it", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    const budget = new BudgetLedger({ limits: { maxToolCalls: 2 }, clock: instantClock() });
    const { gateway } = setup({ budget, cache: store.cache });
    let runs = 0;
    const call = (i: number) =>
      gateway.call({ tool: "t", provider: "p", args: { i }, run: async () => ++runs });
    await call(1);
    await call(1); // cached: free
    await call(2);
    const refused = await call(3);
    expect(refused).toMatchObject({ ok: false, error: { code: "BUDGET_EXCEEDED" } });
    expect(runs).toBe(2);
    expect(budget.snapshot().used.toolCalls).toBe(2);
    store.close();
  });

  it("makes no call once the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort("stop");
    const { gateway } = setup({ signal: controller.signal });
    let runs = 0;
    const result = await gateway.call({ tool: "t", provider: "p", args: {}, run: async () => ++runs });
    expect(result).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(runs).toBe(0);
  });

  it("replays journaled results of a resumed run without calling", async () => {
    const journal = createMemoryJournal();
    const first = setup({ journal });
    await first.gateway.call({ tool: "t", provider: "p", args: { q: 1 }, run: async () => "stored" });
    const resumed = setup({ journal });
    let runs = 0;
    const result = await resumed.gateway.call({
      tool: "t",
      provider: "p",
      args: { q: 1 },
      run: async () => `new ${++runs}`,
    });
    expect(result).toMatchObject({ ok: true, value: "stored", cached: true });
    expect(runs).toBe(0);
  });

  it("computes per-tool shares and failure rates", async () => {
    const { gateway } = setup({ defaults: { retry: { ...fastRetry, maxRetries: 0 } } });
    await gateway.call({ tool: "web_search", provider: "a", args: { i: 1 }, run: async () => 1 });
    await gateway.call({
      tool: "web_search",
      provider: "a",
      args: { i: 2 },
      run: async () => Promise.reject(serverError()),
    });
    await gateway.call({ tool: "fetch_page", provider: "http", args: {}, run: async () => 1 });
    await gateway.call({ tool: "web_search", provider: "b", args: { i: 3 }, run: async () => 1 });
    const m = gateway.metrics();
    expect(m.totalCalls).toBe(4);
    expect(m.tools.map((t) => [t.name, t.calls, t.share, t.failures, t.failureRate])).toEqual([
      ["web_search", 3, 0.75, 1, 1 / 3],
      ["fetch_page", 1, 0.25, 0, 0],
    ]);
    expect(m.providers.map((p) => [p.name, p.calls])).toEqual([
      ["a", 2],
      ["b", 1],
      ["http", 1],
    ]);
  });
});
