/**
 * Keeping the store and the queue in agreement. The store is the source of truth: a run it
 * records as `queued` or `running` must have a job in the queue, or an owner that is alive.
 * When the queue lost the job (Redis restarted without persistence, FLUSHALL, a job removed by
 * hand) the run is enqueued again under an id derived from the run's recorded state, so that
 * any number of sweepers (every worker runs one, and every enqueuer following its runs) acting
 * on the same state enqueue one job between them.
 */

import type { RunRecord } from "../core/run.ts";
import { ownerGone } from "../runtime/run-liveness.ts";
import type { Store } from "../store/types.ts";
import type { RunQueue } from "./run-queue.ts";

/** What {@link reconcileRun} did. */
export type Reconciled =
  | { action: "none" }
  | { action: "requeued"; jobId: string }
  | { action: "taken-over"; jobId: string }
  | { action: "failed"; reason: string };

/** Options of {@link reconcileRun}. */
export interface ReconcileOptions {
  /** A queued run younger than this is left alone (its enqueuer may still be adding its job) (ms). */
  graceMs: number;
  /** A running run whose heartbeat is older than this has lost its owner (ms). */
  staleAfterMs: number;
  now: number;
}

/** The job id a lost queued run is enqueued again under (one per recorded state). */
export function requeueJobId(record: RunRecord): string {
  return `${record.id}.requeue-${Date.parse(record.updatedAt)}`;
}

/** The job id a run whose owner went silent is handed on under (one per last heartbeat). */
export function takeoverJobId(record: RunRecord): string {
  return `${record.id}.takeover-${Date.parse(record.heartbeatAt ?? record.updatedAt)}`;
}

/**
 * Looks at one run that the store records as `queued` or `running` and has no live job in
 * `live`: a queued run past its grace is enqueued again (or failed, with the reason, when its
 * re-enqueued job already ended without starting it); a running run whose owner is gone is
 * handed to a worker, which records it interrupted and resumes it from its journal. A run with
 * a live job, a young queued run and a running run whose owner is alive are left alone.
 */
export async function reconcileRun(
  queue: RunQueue,
  store: Store,
  record: RunRecord,
  live: Set<string>,
  options: ReconcileOptions,
): Promise<Reconciled> {
  if (live.has(record.id)) return { action: "none" };
  const at = new Date(options.now).toISOString();
  if (record.status === "queued") {
    if (options.now - Date.parse(record.updatedAt) < options.graceMs) return { action: "none" };
    const jobId = requeueJobId(record);
    const state = await queue.jobState(jobId);
    if (state === "completed" || state === "failed") {
      // Enqueued again once already and that job ended, yet the run never started.
      const reason = "its job left the queue twice without a worker starting the run";
      await store.runs.update(record.id, {
        status: "failed",
        updatedAt: at,
        finishedAt: at,
        stopReason: "error: STORE_ERROR",
        error: { code: "STORE_ERROR", message: reason },
      });
      return { action: "failed", reason };
    }
    await queue.enqueue(
      {
        kind: "research",
        runId: record.id,
        question: record.query,
        options: record.options,
        enqueuedAt: record.createdAt,
      },
      { jobId },
    );
    return { action: "requeued", jobId };
  }
  if (record.status === "running" && ownerGone(record, options.now, options.staleAfterMs)) {
    const jobId = takeoverJobId(record);
    await queue.enqueue({ kind: "resume", runId: record.id, enqueuedAt: at, takeover: true }, { jobId });
    return { action: "taken-over", jobId };
  }
  return { action: "none" };
}
