/**
 * The sweeper every worker runs. Two passes:
 * - leases, every heartbeat ({@link runHeartbeatMs}): a run the store records as `running` whose
 *   owner is gone — its lease expired, or its process ended on this host — is handed to a worker,
 *   which takes it over and resumes it from its journal. An owner's lease ends at most `--lock-ms`
 *   after it died, so a dead worker's run is handed on within `--lock-ms` + one heartbeat.
 * - lost jobs, every `periodMs`: a run recorded `queued` without a job waiting, delayed or
 *   active is enqueued again (see reconcile.ts). It is acted on only when two readings of the
 *   queue, one right after the other, both lack its job (a job moving between states is not
 *   mistaken for a lost one).
 * Sweepers of many workers may act at once: what they enqueue has ids derived from the run's
 * recorded state, so they enqueue one job between them.
 */

import type { Clock } from "../core/clock.ts";
import { expireDueReviews } from "../runtime/plan-review.ts";
import { runHeartbeatMs } from "../runtime/run-liveness.ts";
import type { Store } from "../store/types.ts";
import { withDeadline } from "./deadline.ts";
import { type Reconciled, reconcileRun, takeOverIfGone } from "./reconcile.ts";
import type { RunQueue } from "./run-queue.ts";

/** The default period of a worker's sweep for lost jobs (ms). */
export const SWEEP_MS = 5_000;

/** What a sweep did to one run. */
export type SweepNote = { runId: string } & Exclude<Reconciled, { action: "none" }>;

/** Options of {@link sweepOnce} and {@link startSweeper}. */
export interface SweeperOptions {
  queue: RunQueue;
  store: Store;
  clock: Clock;
  /** The lease of a running run whose owner recorded none (ms). */
  staleAfterMs: number;
  /** A queued run younger than this is left alone (ms). Default: the period, at least 2 s. */
  graceMs?: number;
  /** Runs of each status looked at per sweep. Default 1000. */
  limit?: number;
  onNote?: (note: SweepNote) => void;
}

/** Hands on every running run whose owner is gone; returns what it did. */
export async function sweepLeases(options: SweeperOptions): Promise<SweepNote[]> {
  const notes: SweepNote[] = [];
  for (const record of await options.store.runs.list({ status: "running", limit: options.limit ?? 1000 })) {
    const done = await takeOverIfGone(options.queue, record, {
      now: options.clock.now(),
      staleAfterMs: options.staleAfterMs,
    });
    if (!done) continue;
    const note: SweepNote = { runId: record.id, ...done };
    notes.push(note);
    options.onNote?.(note);
  }
  return notes;
}

/** Enqueues again every queued run whose job the queue lost; returns what it did. */
export async function sweepQueued(options: SweeperOptions & { graceMs: number }): Promise<SweepNote[]> {
  const { queue, store } = options;
  const candidates = await store.runs.list({ status: "queued", limit: options.limit ?? 1000 });
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
    if (record?.status !== "queued") continue;
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

/** Sweeps once, both passes; returns what it did. */
export async function sweepOnce(options: SweeperOptions & { graceMs: number }): Promise<SweepNote[]> {
  return [...(await sweepLeases(options)), ...(await sweepQueued(options))];
}

/** A running sweeper. */
export interface Sweeper {
  /** The period of each pass (ms). */
  readonly periods: { leasesMs: number; queuedMs: number };
  /** Sweeps now, both passes (a pass under way is awaited rather than doubled). */
  sweep(): Promise<SweepNote[]>;
  stop(): Promise<void>;
}

/** Runs `pass` at most once at a time; a call while it runs gets the run under way. */
function single(pass: () => Promise<SweepNote[]>, deadlineMs: number, onError?: (error: Error) => void) {
  let current: Promise<SweepNote[]> | null = null;
  return {
    run() {
      current ??= withDeadline(pass(), deadlineMs, "a sweep")
        .catch((error: Error) => {
          onError?.(error);
          return [] as SweepNote[];
        })
        .finally(() => {
          current = null;
        });
      return current;
    },
    settled: () => current ?? Promise.resolve([]),
  };
}

/**
 * Starts sweeping: leases every `leasePeriodMs` (default {@link runHeartbeatMs}, one heartbeat
 * of this process's lease), lost jobs every `periodMs` (default {@link SWEEP_MS}). Errors of a
 * sweep are reported and the next goes on.
 */
export function startSweeper(
  options: SweeperOptions & { periodMs?: number; leasePeriodMs?: number; onError?: (error: Error) => void },
): Sweeper {
  const periodMs = options.periodMs ?? SWEEP_MS;
  const leasePeriodMs = options.leasePeriodMs ?? runHeartbeatMs();
  const graceMs = options.graceMs ?? Math.max(2_000, periodMs);
  const deadline = Math.max(periodMs, 10_000);
  const leases = single(() => sweepLeases(options), deadline, options.onError);
  // The same pass ends the runs whose plan review is past its deadline (runtime/plan-review.ts).
  const queued = single(
    () => Promise.all([sweepQueued({ ...options, graceMs }), expireDueReviews(options)]).then(([n]) => n),
    deadline,
    options.onError,
  );
  const timers = [
    setInterval(() => void leases.run(), leasePeriodMs),
    setInterval(() => void queued.run(), periodMs),
  ];
  for (const timer of timers) timer.unref();
  return {
    periods: { leasesMs: leasePeriodMs, queuedMs: periodMs },
    async sweep() {
      return [...(await leases.run()), ...(await queued.run())];
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([leases.settled(), queued.settled()]);
    },
  };
}
