/**
 * The sweeper every worker runs: every `periodMs` it lists the runs the store records as
 * `queued` or `running` and reconciles those without a live job (see reconcile.ts). Sweepers of
 * many workers may act at once: what they enqueue has ids derived from the run's recorded
 * state, so they enqueue one job between them. A run is acted on only when two readings of the
 * queue, one right after the other, both lack its job (a job moving between states is not
 * mistaken for a lost one).
 */

import type { Clock } from "../core/clock.ts";
import type { Store } from "../store/types.ts";
import { withDeadline } from "./deadline.ts";
import { type Reconciled, reconcileRun } from "./reconcile.ts";
import type { RunQueue } from "./run-queue.ts";

/** The default period of a worker's sweeper (ms). */
export const SWEEP_MS = 5_000;

/** What a sweep did to one run. */
export type SweepNote = { runId: string } & Exclude<Reconciled, { action: "none" }>;

/** Options of {@link sweepOnce} and {@link startSweeper}. */
export interface SweeperOptions {
  queue: RunQueue;
  store: Store;
  clock: Clock;
  /** A running run whose heartbeat is older than this has lost its owner (ms). */
  staleAfterMs: number;
  /** A queued run younger than this is left alone (ms). Default: the period, at least 2 s. */
  graceMs?: number;
  /** Runs of each status looked at per sweep. Default 1000. */
  limit?: number;
  onNote?: (note: SweepNote) => void;
}

/** Sweeps once; returns what it did. */
export async function sweepOnce(options: SweeperOptions & { graceMs: number }): Promise<SweepNote[]> {
  const { queue, store } = options;
  const limit = options.limit ?? 1000;
  const candidates = [
    ...(await store.runs.list({ status: "queued", limit })),
    ...(await store.runs.list({ status: "running", limit })),
  ];
  if (candidates.length === 0) return [];
  const first = await queue.liveRuns();
  const orphans = candidates.filter((r) => !first.has(r.id));
  if (orphans.length === 0) return [];
  const second = await queue.liveRuns();
  const notes: SweepNote[] = [];
  for (const orphan of orphans) {
    if (second.has(orphan.id)) continue;
    // Read again: the run may have started or ended since it was listed.
    const record = await store.runs.get(orphan.id);
    if (!record || (record.status !== "queued" && record.status !== "running")) continue;
    const done = await reconcileRun(queue, store, record, second, {
      graceMs: options.graceMs,
      staleAfterMs: options.staleAfterMs,
      now: options.clock.now(),
    });
    if (done.action !== "none") {
      const note = { runId: record.id, ...done } as SweepNote;
      notes.push(note);
      options.onNote?.(note);
    }
  }
  return notes;
}

/** A running sweeper. */
export interface Sweeper {
  /** Sweeps now (a sweep under way is awaited rather than doubled). */
  sweep(): Promise<SweepNote[]>;
  stop(): Promise<void>;
}

/** Starts sweeping every `periodMs` (default {@link SWEEP_MS}); errors of a sweep are reported and the next goes on. */
export function startSweeper(
  options: SweeperOptions & { periodMs?: number; onError?: (error: Error) => void },
): Sweeper {
  const periodMs = options.periodMs ?? SWEEP_MS;
  const graceMs = options.graceMs ?? Math.max(2_000, periodMs);
  let current: Promise<SweepNote[]> | null = null;
  const sweep = () => {
    current ??= withDeadline(sweepOnce({ ...options, graceMs }), Math.max(periodMs, 10_000), "a sweep")
      .catch((error: Error) => {
        options.onError?.(error);
        return [] as SweepNote[];
      })
      .finally(() => {
        current = null;
      });
    return current;
  };
  const timer = setInterval(() => void sweep(), periodMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
