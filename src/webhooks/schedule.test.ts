/** Retries: exponential backoff with ±25% jitter, a longer Retry-After honoured up to the cap, bounded attempts, 410 ends it. */

import { describe, expect, it } from "vitest";
import { nextStep } from "./schedule.ts";

const policy = { maxAttempts: 7, baseDelayMs: 60_000, maxDelayMs: 1_800_000 };
const t0 = Date.parse("2026-01-01T00:00:00.000Z");
const delayOf = (step: { nextAttemptAt: string | null }) => Date.parse(step.nextAttemptAt!) - t0;
const failure = { ok: false, status: 500 };

describe("nextStep", () => {
  it("doubles the delay at each retry, within ±25%, up to the cap", () => {
    const low = () => 0;
    const high = () => 0.999_999;
    for (const [made, base] of [
      [1, 60_000],
      [2, 120_000],
      [3, 240_000],
      [6, 1_800_000],
    ] as const) {
      expect(delayOf(nextStep(made, failure, policy, t0, low))).toBe(base * 0.75);
      expect(delayOf(nextStep(made, failure, policy, t0, high))).toBeCloseTo(base * 1.25, -1);
    }
    // The default schedule spans about an hour: 1 + 2 + 4 + 8 + 16 + 30 minutes.
    const total = [1, 2, 3, 4, 5, 6].reduce(
      (sum, made) => sum + delayOf(nextStep(made, failure, policy, t0, () => 0.5)),
      0,
    );
    expect(total / 60_000).toBe(61);
  });

  it("gives up after the last attempt, or at once on 410 Gone", () => {
    expect(nextStep(7, failure, policy, t0, Math.random)).toEqual({ state: "failed", nextAttemptAt: null });
    expect(nextStep(1, { ok: false, status: 410 }, policy, t0, Math.random)).toEqual({
      state: "failed",
      nextAttemptAt: null,
    });
    expect(nextStep(3, { ok: true, status: 204 }, policy, t0, Math.random)).toEqual({
      state: "delivered",
      nextAttemptAt: null,
    });
  });

  it("waits as long as a receiver's Retry-After asks, up to the longest delay", () => {
    const asked = (ms: number) =>
      delayOf(nextStep(1, { ok: false, status: 503, retryAfterMs: ms }, policy, t0, () => 0.5));
    expect(asked(600_000)).toBe(600_000);
    expect(asked(10)).toBe(60_000);
    expect(asked(99_000_000)).toBe(1_800_000);
  });
});
