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
