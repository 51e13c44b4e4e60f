/**
 * Adaptive concurrency of one provider, set by its answers: it starts at the policy's
 * `concurrency`; while calls wait for a slot and the provider has never answered 429, each
 * success adds a slot (slow start: the limit doubles per round of answers) up to the policy's
 * `maxConcurrency`; a 429 halves it and ends the slow start; after that, one more slot after as
 * many successes in a row as calls in flight (AIMD) — beyond `concurrency` only while calls wait.
 */

import type PQueue from "p-queue";

/** What the adaptive limit works on: a provider's queue, its policy and its success count. */
export interface AdaptiveState {
  queue: PQueue;
  policy: { concurrency: number; maxConcurrency?: number; adaptive?: boolean };
  successes: number;
  /** The provider has answered 429 at least once (the slow start is over). */
  pushedBack?: boolean;
}

/** The most calls at once the limit may reach. */
export function ceilingOf(policy: AdaptiveState["policy"]): number {
  return Math.max(policy.concurrency, policy.maxConcurrency ?? policy.concurrency);
}

/** Multiplicative decrease on a 429; returns `[before, after]` when the limit changed, else null. */
export function backOff(state: AdaptiveState): [number, number] | null {
  if (state.policy.adaptive === false) return null;
  state.pushedBack = true;
  const before = state.queue.concurrency;
  const after = Math.max(1, Math.floor(before / 2));
  state.successes = 0;
  if (after === before) return null;
  state.queue.concurrency = after;
  return [before, after];
}

/** Increase after a success: a slot per success in the slow start, else one after a run of successes. */
export function recover(state: AdaptiveState): void {
  if (state.policy.adaptive === false) return;
  const current = state.queue.concurrency;
  const waiting = state.queue.size > 0;
  // Beyond the starting limit only while calls wait for a slot.
  const ceiling = waiting ? ceilingOf(state.policy) : state.policy.concurrency;
  if (current >= ceiling) return;
  if (!state.pushedBack && waiting) {
    state.queue.concurrency = current + 1;
    state.successes = 0;
    return;
  }
  state.successes++;
  if (state.successes >= current) {
    state.queue.concurrency = current + 1;
    state.successes = 0;
  }
}
