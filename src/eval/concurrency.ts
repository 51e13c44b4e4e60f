/**
 * Running evaluation work items (judge calls, per-task pipelines) concurrently under a limit,
 * with every failure kept as a counted outcome instead of an exception that loses the others.
 * Generic: any evaluator may use it.
 */

import PQueue from "p-queue";
import { cancelledError } from "../core/clock.ts";
import { type DossierError, isDossierError, toDossierError } from "../core/errors.ts";

/** The outcome of one work item: its value, or the error it failed with. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: DossierError };

/** Progress after an item settles. */
export interface ConcurrencyProgress {
  /** Items settled so far. */
  done: number;
  /** Items that failed so far. */
  failed: number;
  /** All items. */
  total: number;
}

/** Options of {@link runConcurrently}. */
export interface RunConcurrentlyOptions<T, R> {
  /** Items in flight at once (at least 1). */
  concurrency: number;
  /** Stops scheduling new items; the call then rejects with CANCELLED. */
  signal?: AbortSignal;
  /** Called after each item settles, in completion order. */
  onSettled?: (outcome: Settled<R>, item: T, index: number, progress: ConcurrencyProgress) => void;
}

/**
 * Runs `worker` on every item with at most `concurrency` in flight. Resolves to one outcome
 * per item, in input order; a failing item never stops the others. A CANCELLED failure (or an
 * aborted `signal`) rejects the whole call with CANCELLED once running items have stopped.
 */
export async function runConcurrently<T, R>(
  items: readonly T[],
  worker: (item: T, index: number) => Promise<R>,
  options: RunConcurrentlyOptions<T, R>,
): Promise<Settled<R>[]> {
  const { signal } = options;
  if (signal?.aborted) throw cancelledError(signal);
  const queue = new PQueue({ concurrency: Math.max(1, Math.floor(options.concurrency)) });
  const outcomes: Settled<R>[] = new Array(items.length);
  const progress: ConcurrencyProgress = { done: 0, failed: 0, total: items.length };
  let cancelled: DossierError | undefined;
  const onAbort = () => {
    cancelled ??= cancelledError(signal);
    queue.clear();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    items.forEach((item, index) => {
      void queue.add(async () => {
        if (cancelled) return;
        let outcome: Settled<R>;
        try {
          outcome = { ok: true, value: await worker(item, index) };
        } catch (error) {
          const typed = toDossierError(error);
          if (isDossierError(typed, "CANCELLED")) {
            cancelled ??= typed;
            queue.clear();
            return;
          }
          outcome = { ok: false, error: typed };
        }
        outcomes[index] = outcome;
        progress.done += 1;
        if (!outcome.ok) progress.failed += 1;
        options.onSettled?.(outcome, item, index, { ...progress });
      });
    });
    await queue.onIdle();
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  if (cancelled) throw cancelled;
  return outcomes;
}

/** Counts of a list of outcomes. */
export function countOutcomes<R>(outcomes: readonly Settled<R>[]): { ok: number; failed: number } {
  const failed = outcomes.filter((o) => !o.ok).length;
  return { ok: outcomes.length - failed, failed };
}
