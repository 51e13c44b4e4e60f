import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { DossierError } from "./errors.ts";
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, withRetry } from "./retry.ts";

const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1000, jitter: 0 };

describe("backoffDelay", () => {
  it("doubles from the base delay up to the cap", () => {
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, policy, () => 0.5))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
  });

  it("applies jitter within ±jitter of the delay", () => {
    const p = { ...policy, jitter: 0.5 };
    expect(backoffDelay(2, p, () => 0)).toBe(100);
    expect(backoffDelay(2, p, () => 0.999999)).toBe(300);
  });

  it("uses the server's Retry-After when given", () => {
    expect(backoffDelay(1, policy, () => 0.5, 7000)).toBe(7000);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  it("reads seconds, milliseconds and HTTP dates", () => {
    expect(parseRetryAfter({ "Retry-After": "3" }, now)).toBe(3000);
    expect(parseRetryAfter({ "retry-after-ms": "250" }, now)).toBe(250);
    expect(parseRetryAfter({ "retry-after": "Sun, 22 Nov 2026 12:00:05 GMT" }, now)).toBe(5000);
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("withRetry", () => {
  it("retries retryable failures, waiting as told, then succeeds", async () => {
    const clock = instantClock();
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw new Error("busy");
        return "ok";
      },
      { policy, clock, classify: () => ({ retryable: true, retryAfterMs: calls === 1 ? 2000 : undefined }) },
    );
    expect(result).toBe("ok");
    expect(calls).toBe(3);
    expect(clock.sleeps).toEqual([2000, 200]);
  });

  it("gives up after maxRetries and rethrows the last error", async () => {
    const clock = instantClock();
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error(`fail ${calls}`);
        },
        { policy, clock, classify: () => ({ retryable: true }) },
      ),
    ).rejects.toThrow("fail 4");
    expect(calls).toBe(4);
  });

  it("does not retry non-retryable errors or a Retry-After beyond the policy", async () => {
    const clock = instantClock();
    let calls = 0;
    const fail = async () => {
      calls++;
      throw new Error("no");
    };
    await expect(withRetry(fail, { policy, clock, classify: () => ({ retryable: false }) })).rejects.toThrow(
      "no",
    );
    await expect(
      withRetry(fail, { policy, clock, classify: () => ({ retryable: true, retryAfterMs: 10 * 60_000 }) }),
    ).rejects.toThrow("no");
    expect(calls).toBe(2);
    expect(clock.sleeps).toEqual([]);
  });

  it("stops with CANCELLED when the signal aborts", async () => {
    const clock = instantClock();
    const controller = new AbortController();
    let calls = 0;
    const promise = withRetry(
      async () => {
        calls++;
        controller.abort("user");
        throw new Error("x");
      },
      { policy, clock, signal: controller.signal, classify: () => ({ retryable: true }) },
    );
    await expect(promise).rejects.toSatisfy((e) => e instanceof DossierError && e.code === "CANCELLED");
    expect(calls).toBe(1);
  });
});
