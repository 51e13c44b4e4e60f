/**
 * Adaptive concurrency of one provider (AIMD): half the calls at once when it answers 429,
 * one more after as many successes in a row as calls in flight, up to the policy's limit.
 */

import type PQueue from "p-queue";

/** What the adaptive limit works on: a provider's queue, its policy and its success count. */
export interface AdaptiveState {
  queue: PQueue;
  policy: { concurrency: number; adaptive?: boolean };
  successes: number;
}

/** Multiplicative decrease on a 429; returns `[before, after]` when the limit changed, else null. */
export function backOff(state: AdaptiveState): [number, number] | null {
  if (state.policy.adaptive === false) return null;
  const before = state.queue.concurrency;
  const after = Math.max(1, Math.floor(before / 2));
  state.successes = 0;
  if (after === before) return null;
  state.queue.concurrency = after;
  return [before, after];
}

/** Additive increase after a run of successes. */
export function recover(state: AdaptiveState): void {
  if (state.policy.adaptive === false) return;
  const current = state.queue.concurrency;
  if (current >= state.policy.concurrency) return;
  state.successes++;
  if (state.successes >= current) {
    state.queue.concurrency = current + 1;
    state.successes = 0;
  }
}
