/**
 * Keeping the store and the queue in agreement. The store is the source of truth: a run it
 * records as `queued` must have a job in the queue, and a `running` run an owner whose lease
 * holds. When the queue lost a queued run's job (Redis restarted without persistence, FLUSHALL,
 * a job removed by hand) the run is enqueued again; a running run whose owner is gone (its
 * lease expired, or its process ended on this host) is handed to a worker, whatever the queue
 * holds. What is enqueued has an id derived from the run's recorded state, so that any number
 * of sweepers (every worker runs one, and every enqueuer following its runs) acting on the same
 * state enqueue one job between them.
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
  /** The lease of a running run whose owner recorded none (ms). */
  staleAfterMs: number;
  now: number;
  /**
   * Also hand on an `interrupted` run (its worker died and its job is gone): an enqueuer
   * following a run it enqueued does, a sweeper does not (an interrupted run may be a user's
   * own, resumed by hand).
   */
  resumeInterrupted?: boolean;
}

/** The job id a lost queued run is enqueued again under (one per recorded state). */
export function requeueJobId(record: RunRecord): string {
  return `${record.id}.requeue-${Date.parse(record.updatedAt)}`;
}

/** The job id a run whose owner went silent is handed on under (one per last heartbeat). */
export function takeoverJobId(record: RunRecord): string {
  return `${record.id}.takeover-${Date.parse(record.heartbeatAt ?? record.updatedAt)}`;
}

/** The job id an interrupted run whose job is gone is resumed under (one per recorded state). */
export function resumeJobId(record: RunRecord): string {
  return `${record.id}.interrupted-${Date.parse(record.updatedAt)}`;
}

/**
 * Hands a `running` run whose owner is gone (its lease expired, or its process ended on this
 * host) to a worker, which takes it over and resumes it from its journal — whether or not the
 * queue still holds its job (a job whose worker died is active until BullMQ finds it stalled).
 * Null when the owner is not gone.
 */
export async function takeOverIfGone(
  queue: RunQueue,
  record: RunRecord,
  options: { now: number; staleAfterMs: number },
): Promise<Extract<Reconciled, { action: "taken-over" }> | null> {
  if (!ownerGone(record, options.now, options.staleAfterMs)) return null;
  const jobId = takeoverJobId(record);
  const at = new Date(options.now).toISOString();
  await queue.enqueue(
    { kind: "resume", runId: record.id, enqueuedAt: at, takeover: true },
    { jobId, first: true },
  );
  return { action: "taken-over", jobId };
}

/**
 * Looks at one run that the store records as `queued` or `running` and has no live job in
 * `live`: a queued run past its grace is enqueued again (or failed, with the reason, when its
 * re-enqueued job already ended without starting it); a running run whose owner is gone is
 * handed to a worker, which takes it over and resumes it from its journal (and, with
 * `resumeInterrupted`, so is an interrupted one). A run with a live job, a young queued run and
 * a running run whose owner is alive are left alone.
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
  if (record.status === "running")
    return (await takeOverIfGone(queue, record, options)) ?? { action: "none" };
  if (record.status === "interrupted" && options.resumeInterrupted) {
    const jobId = resumeJobId(record);
    const state = await queue.jobState(jobId);
    if (state === "completed" || state === "failed") {
      // Handed on once already in this state, and that job ended without taking the run up.
      const reason = "it was interrupted and its resume left the queue without a worker taking it up";
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
      { kind: "resume", runId: record.id, enqueuedAt: at, takeover: true },
      { jobId, first: true },
    );
    return { action: "taken-over", jobId };
  }
  return { action: "none" };
}
