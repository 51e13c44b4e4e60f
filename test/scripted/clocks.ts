/**
 * Test clocks: time that only moves when the test (or a sleep) moves it.
 */

import { type Clock, cancelledError } from "../../src/core/clock.ts";

/** A clock whose sleeps return at once and advance its time by the slept amount. */
export interface InstantClock extends Clock {
  /** Moves time forward. */
  advance(ms: number): void;
  /** Every sleep requested, in ms. */
  sleeps: number[];
}

/** Creates an {@link InstantClock} starting at `startMs` (default 2026-11-22T12:00:00Z). */
export function instantClock(startMs = Date.UTC(2026, 10, 22, 12, 0, 0)): InstantClock {
  let now = startMs;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    advance(ms) {
      now += ms;
    },
    async sleep(ms, signal) {
      if (signal?.aborted) throw cancelledError(signal);
      sleeps.push(ms);
      now += ms;
      await Promise.resolve();
    },
  };
}
