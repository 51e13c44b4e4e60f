import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { DossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";
import { PROVIDER_DEFAULTS, ToolGateway } from "./gateway.ts";

const noWait = { maxRetries: 3, baseDelayMs: 0, maxDelayMs: 0, jitter: 0, maxRetryAfterMs: 0 };

describe("ToolGateway adaptive limits", () => {
  it("halves a provider's calls at once on 429 and recovers one by one after successes", async () => {
    const events: EventInput[] = [];
    const gateway = new ToolGateway({
      clock: instantClock(),
      emit: (e) => events.push(e),
      defaults: { concurrency: 8, retry: noWait, cacheTtlMs: 0 },
    });
    let limited = 2;
    const call = (i: number) =>
      gateway.call({
        tool: "web_search",
        provider: "p",
        args: { i },
        run: async () => {
          if (limited > 0) {
            limited--;
            throw new DossierError("RATE_LIMITED", "429", { retryable: true });
          }
          return i;
        },
      });
    expect(gateway.concurrencyOf("p")).toBe(8);
    expect((await call(0)).ok).toBe(true);
    // Two 429s: 8 → 4 → 2; the call itself then succeeded on its third attempt.
    expect(gateway.concurrencyOf("p")).toBe(2);
    const backoffs = events.filter((e) => e.type === "warning" && e.code === "PROVIDER_BACKOFF");
    expect(backoffs).toHaveLength(2);
    // Additive increase: one more slot after as many successes as the current limit.
    await call(1);
    expect(gateway.concurrencyOf("p")).toBe(3);
    for (let i = 2; i < 40; i++) await call(i);
    expect(gateway.concurrencyOf("p")).toBe(8);
  });

  /** `n` calls that each answer when released (in order), with the peak of calls in flight. */
  function heldCalls(gateway: ToolGateway, provider: string, n: number, failFirst = 0) {
    const waiting: (() => void)[] = [];
    let inFlight = 0;
    let peak = 0;
    let failures = failFirst;
    const calls = Array.from({ length: n }, (_, i) =>
      gateway.call({
        tool: "web_search",
        provider,
        args: { i },
        cache: false,
        run: () =>
          new Promise<number>((resolve, reject) => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            waiting.push(() => {
              inFlight--;
              if (failures-- > 0) reject(new DossierError("RATE_LIMITED", "429", { retryable: true }));
              else resolve(i);
            });
          }),
      }),
    );
    const tick = () => new Promise((r) => setTimeout(r, 0));
    return {
      peak: () => peak,
      inFlight: () => inFlight,
      /** Answers the calls one by one, in the order they started, until all are done. */
      async answerAll() {
        let settled = 0;
        for (const c of calls) void c.then(() => settled++);
        for (let k = 0; k < 10 * n && settled < n; k++) {
          await tick();
          waiting.shift()?.();
        }
        return Promise.all(calls);
      },
    };
  }

  it("gives a provider that keeps answering a slot more per success while calls wait, up to its ceiling", async () => {
    const gateway = new ToolGateway({
      clock: instantClock(),
      providers: { p: { concurrency: 2, maxConcurrency: 6, retry: noWait, cacheTtlMs: 0 } },
    });
    const held = heldCalls(gateway, "p", 30);
    await new Promise((r) => setTimeout(r, 0));
    expect(held.inFlight()).toBe(2);
    const results = await held.answerAll();
    expect(results.every((r) => r.ok)).toBe(true);
    // Each success with calls waiting added a slot: 2 → 6, never beyond the ceiling.
    expect(held.peak()).toBe(6);
    expect(gateway.concurrencyOf("p")).toBe(6);
  });

  it("ends the slow start at the first 429: halved, then a slot more only after a run of successes", async () => {
    const events: EventInput[] = [];
    const gateway = new ToolGateway({
      clock: instantClock(),
      emit: (e) => events.push(e),
      providers: { p: { concurrency: 4, maxConcurrency: 64, retry: noWait, cacheTtlMs: 0 } },
    });
    const held = heldCalls(gateway, "p", 30, 1);
    const results = await held.answerAll();
    expect(results.every((r) => r.ok)).toBe(true);
    expect(events.filter((e) => e.type === "warning" && e.code === "PROVIDER_BACKOFF")).toHaveLength(1);
    // 4 → 2 at the 429, then a slot after as many successes as slots while calls wait: 3, 4, 5,
    // 6, 7 after 2 + 3 + 4 + 5 + 6 successes; the last calls answer with none waiting.
    expect(gateway.concurrencyOf("p")).toBe(7);
    expect(held.peak()).toBe(7);
  });

  it("keeps a concurrency set without a ceiling fixed: arXiv's one call at a time, a caller's own limit", async () => {
    const gateway = new ToolGateway({
      clock: instantClock(),
      defaults: { retry: noWait, cacheTtlMs: 0 },
      providers: { mine: { concurrency: 3 } },
    });
    const mine = heldCalls(gateway, "mine", 12);
    await mine.answerAll();
    expect(mine.peak()).toBe(3);
    expect(gateway.policyOf("arxiv").maxConcurrency).toBe(1);
    // A hosted API starts at 4 and may grow while it keeps answering.
    expect(gateway.policyOf("tavily")).toMatchObject({ concurrency: 4, maxConcurrency: 16 });
  });

  it("lets a self-hosted SearXNG or the local corpus take more calls at once than a hosted API", () => {
    const gateway = new ToolGateway({});
    expect(gateway.concurrencyOf("tavily")).toBe(4);
    expect(gateway.concurrencyOf("searxng")).toBe(PROVIDER_DEFAULTS.searxng!.concurrency);
    expect(gateway.concurrencyOf("corpus")).toBeGreaterThan(gateway.concurrencyOf("tavily"));
  });

  it("records the time a call waited for a slot as queueMs on tool-end", async () => {
    const events: EventInput[] = [];
    let now = 0;
    const gateway = new ToolGateway({
      clock: { now: () => now } as never,
      emit: (e) => events.push(e),
      defaults: { concurrency: 1, retry: noWait, cacheTtlMs: 0 },
    });
    let release!: () => void;
    const first = gateway.call({
      tool: "t",
      provider: "q",
      args: { n: 1 },
      run: () =>
        new Promise<number>((r) => {
          release = () => r(1);
        }),
    });
    const second = gateway.call({ tool: "t", provider: "q", args: { n: 2 }, run: async () => 2 });
    await new Promise((r) => setTimeout(r, 10));
    now = 250;
    release();
    await Promise.all([first, second]);
    const ends = events.filter((e) => e.type === "tool-end") as { queueMs?: number; callId: string }[];
    expect(ends.find((e) => e.callId.endsWith("2"))?.queueMs).toBe(250);
    expect(ends.find((e) => e.callId.endsWith("1"))?.queueMs).toBeUndefined();
  });
});
