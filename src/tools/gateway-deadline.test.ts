import { describe, expect, it } from "vitest";
import { systemClock } from "../core/clock.ts";
import { ToolGateway } from "./gateway.ts";

const retry = { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 10, jitter: 0, maxRetryAfterMs: 1000 };
const never = () => new Promise<never>(() => {});

describe("ToolGateway deadline", () => {
  it("bounds a call that never answers by one deadline across its retries, and says how long it took", async () => {
    const gateway = new ToolGateway({
      clock: systemClock,
      defaults: { timeoutMs: 120, deadlineMs: 200, retry, cacheTtlMs: 0 },
    });
    let attempts = 0;
    const result = await gateway.call({
      tool: "fetch_page",
      provider: "http",
      args: { url: "http://127.0.0.1/slow" },
      run: () => {
        attempts++;
        return never();
      },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("TIMEOUT");
    // Two attempts: 120 ms, then the 80 ms left of the 200 ms deadline; never the third the
    // retry policy would allow (a slow machine may not even get to the second).
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(2);
    // The message states the real time spent, not one attempt's limit.
    const spent = Number(/(\d+) ms(?: since the first| \(deadline)/.exec(result.error.message)?.[1]);
    expect(spent).toBeGreaterThanOrEqual(180);
    expect(result.error.message).toMatch(/deadline/);
  });

  it("defaults the deadline to one and a half attempts", async () => {
    const gateway = new ToolGateway({
      clock: systemClock,
      defaults: { timeoutMs: 60, retry, cacheTtlMs: 0 },
    });
    let attempts = 0;
    const result = await gateway.call({
      tool: "web_search",
      provider: "p",
      args: { query: "q" },
      run: () => {
        attempts++;
        return never();
      },
    });
    expect(result.ok).toBe(false);
    expect(attempts).toBeLessThanOrEqual(2);
  });
});
