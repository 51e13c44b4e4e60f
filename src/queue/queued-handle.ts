/**
 * A research run executed by a worker, as the enqueueing process holds it: the same
 * ResearchHandle as a run in this process (run id at once, `done`, `cancel`, events), with events
 * read from the shared store. The outcome is the run's record in the store, read every
 * `followMs`; the job's result from the queue's events only makes it known sooner, so a job that
 * Redis lost (or a Redis that restarted) never leaves `done` waiting. Cancelling a queued run
 * records it cancelled and withdraws its job; a running run's worker is asked through the store.
 */

import { DossierError, toDossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { ReportDocument } from "../core/report.ts";
import type { RunRecord } from "../core/run.ts";
import { readPlanReview } from "../runtime/plan-review.ts";
import type { ResearchHandle, ResearchResult } from "../runtime/research-handle.ts";
import { STALE_HEARTBEAT_MS } from "../runtime/run-liveness.ts";
import type { Store } from "../store/types.ts";
import { pause, withDeadline } from "./deadline.ts";
import type { RunJobResult } from "./jobs.ts";
import { polledEvents } from "./polled-events.ts";
import { reconcileRun } from "./reconcile.ts";
import { storedOutcome } from "./run-outcome.ts";
import type { RunQueue } from "./run-queue.ts";

/** How many times a handle hands on an interrupted run whose job is gone before it gives up. */
export const MAX_HANDED_ON = 3;

/** A promise that never settles (a way to a result that is left to another). */
const never = <T>(): Promise<T> => new Promise<T>(() => {});

/** A handle on a queued run; `remote` tells it from a run in this process. */
export interface QueuedHandle extends ResearchHandle {
  readonly remote: true;
  /** Resolves with the job's id once it is queued; rejects when the request was refused. */
  readonly enqueued: Promise<string>;
}

/** Options of {@link queuedHandle}. */
export interface QueuedHandleOptions {
  queue: RunQueue;
  store: Store;
  /** Resolves with the job's id once it is in the queue (rejects when it could not be enqueued). */
  enqueued: Promise<string>;
  signal?: AbortSignal;
  onEvent?: (event: DossierEvent) => void;
  /** How often the store is read for events and cancellation (ms). Default 250. */
  pollMs?: number;
  /**
   * How often the run's record and the queue are read to follow the run when the queue's
   * events do not tell (a job lost, Redis restarted) (ms). Default 1000.
   */
  followMs?: number;
  /** For a resume: the run's `updatedAt` when it was enqueued (an end recorded before it is not this resume's). */
  since?: () => string | undefined;
  /** A running run whose heartbeat is older than this has lost its owner (ms). Default STALE_HEARTBEAT_MS. */
  staleAfterMs?: number;
  clock?: { now(): number };
  /**
   * Stops following the run when it aborts (the caller leaves without waiting for the end):
   * `done` no longer settles and nothing more is read or written.
   */
  detached?: AbortSignal;
}

/** The error of a job that failed for good (its worker writes `CODE: message`). */
function errorOfFailure(error: unknown): DossierError {
  const message = error instanceof Error ? error.message : String(error);
  const coded = /^([A-Z][A-Z_]+): ([\s\S]*)$/.exec(message);
  return coded ? new DossierError(coded[1] as never, coded[2]!) : toDossierError(error);
}

/** The handle of the queued run `runId`. */
export function queuedHandle(runId: string, options: QueuedHandleOptions): QueuedHandle {
  const { queue, store } = options;
  const pollMs = options.pollMs ?? 250;
  const followMs = options.followMs ?? 1_000;
  const now = () => new Date((options.clock ?? Date).now()).toISOString();
  let withdraw!: (outcome: RunRecord | string) => void;
  // Settles when the job is taken out of the queue before a worker started it: with the run's
  // record when the run was cancelled while queued, else (a resume not yet taken up) rejects.
  const withdrawn = new Promise<RunRecord>((resolve, reject) => {
    withdraw = (outcome) =>
      typeof outcome === "string"
        ? reject(
            new DossierError("CANCELLED", `run ${runId} was cancelled before a worker took it: ${outcome}`),
          )
        : resolve(outcome);
  });
  withdrawn.catch(() => {});

  /** The run's result as the store records it (`error` when it ended without its own). */
  const fromRecord = async (record: RunRecord, error?: DossierError): Promise<ResearchResult> => {
    const { markdown, paths } = await storedOutcome(store, record);
    const failure = record.error
      ? new DossierError(record.error.code as never, record.error.message)
      : (error ?? null);
    return {
      runId,
      status: record.status,
      stopReason: record.stopReason ?? record.status,
      report: null,
      markdown,
      paths,
      usage: record.usage,
      error: record.status === "completed" || record.status === "awaiting-review" ? null : failure,
      record,
      plan: await planOf(record),
    };
  };

  /** The plan awaiting review, for a run stopped after its plan. */
  const planOf = async (record: RunRecord) =>
    record.status === "awaiting-review" ? ((await readPlanReview(store, runId))?.plan ?? null) : null;

  /** The shortcut: the job's end as the queue's events report it (never settles when the job is gone). */
  const fromJob = async (jobId: string): Promise<ResearchResult> => {
    let outcome: RunJobResult;
    try {
      outcome = await queue.finished(jobId);
    } catch (error) {
      const record = await store.runs.get(runId);
      if (!record) {
        if (error instanceof DossierError && error.code === "NOT_FOUND") return never();
        throw errorOfFailure(error);
      }
      // The job is gone, or failed while the run is still queued or running (a worker that
      // stalled too often): the store, and a sweeper, decide how the run ends.
      if (record.status === "queued" || record.status === "running") return never();
      if (error instanceof DossierError && error.code === "NOT_FOUND") return never();
      // The job failed for good: the run's record says how its last attempt ended.
      const failure = record.error ?? { code: "INTERNAL", message: (error as Error).message };
      return fromRecord(record, new DossierError(failure.code as never, failure.message));
    }
    // A job that left the run to the owner whose lease holds (the run went on elsewhere after
    // the job stalled): the store says how it ends.
    if (outcome.status === "queued" || outcome.status === "running") return never();
    const record = await store.runs.get(runId);
    if (!record)
      throw new DossierError("STORE_ERROR", `run ${runId} ended on its worker but is not in the store`);
    return {
      runId,
      status: outcome.status,
      stopReason: outcome.stopReason,
      report: (outcome.report as ReportDocument | null) ?? null,
      markdown: outcome.markdown,
      paths: outcome.paths,
      usage: outcome.usage,
      error: outcome.error
        ? new DossierError(outcome.error.code as never, outcome.error.message, {
            retryable: outcome.error.retryable,
          })
        : null,
      record,
      plan: await planOf(record),
    };
  };

  /**
   * The source of truth: the run's record, read every `followMs`. A run recorded completed or
   * cancelled (for a resume: after the resume was enqueued) has ended. A run with no live job in
   * two readings in a row is reconciled when queued, running or interrupted (enqueued again, or
   * handed on: an interrupted run at most {@link MAX_HANDED_ON} times), and has ended as
   * recorded otherwise (failed, or a resume no worker took up).
   */
  const fromStore = async (stop: AbortSignal): Promise<ResearchResult> => {
    const since = options.since?.();
    let missing = 0;
    let handedOn = 0;
    for (;;) {
      await pause(followMs, stop);
      if (stop.aborted) return never();
      const record = await withDeadline(store.runs.get(runId), 5_000, "the store").catch(() => undefined);
      if (!record) continue;
      const changed = since === undefined || record.updatedAt !== since;
      if (
        changed &&
        (record.status === "completed" ||
          record.status === "cancelled" ||
          record.status === "awaiting-review")
      )
        return fromRecord(record);
      const live = await withDeadline(queue.liveRuns(followMs / 2), 2_000, "the queue").catch(() => null);
      if (live === null) {
        missing = 0;
        continue;
      }
      missing = live.has(runId) ? 0 : missing + 1;
      if (missing < 2) continue;
      const interrupted = record.status === "interrupted" && handedOn < MAX_HANDED_ON;
      if (record.status === "queued" || record.status === "running" || interrupted) {
        const done = await reconcileRun(queue, store, record, live, {
          graceMs: Math.max(2_000, 2 * followMs),
          staleAfterMs: options.staleAfterMs ?? STALE_HEARTBEAT_MS,
          now: (options.clock ?? Date).now(),
          resumeInterrupted: true,
        }).catch(() => undefined);
        if (interrupted && done?.action === "taken-over") handedOn++;
        continue;
      }
      return fromRecord(
        record,
        new DossierError(
          "STORE_ERROR",
          `run ${runId} is ${record.status} and has no job in the queue any more (resume it to try again)`,
        ),
      );
    }
  };

  const detached = options.detached;
  const done = (async (): Promise<ResearchResult> => {
    const jobId = await options.enqueued;
    const stop = new AbortController();
    const onDetach = () => stop.abort();
    if (detached?.aborted) return never();
    detached?.addEventListener("abort", onDetach, { once: true });
    try {
      return await Promise.race([
        fromJob(jobId),
        fromStore(stop.signal),
        withdrawn.then((record) => fromRecord(record)),
      ]);
    } finally {
      detached?.removeEventListener("abort", onDetach);
      stop.abort();
    }
  })();

  const cancel = (reason = "cancelled by user") => {
    void (async () => {
      const jobId = await options.enqueued.catch(() => null);
      if (jobId === null) return;
      let ended = false;
      void done.then(
        () => {
          ended = true;
        },
        () => {
          ended = true;
        },
      );
      while (!ended && !detached?.aborted) {
        // A queued run is cancelled in the store at once (a worker that takes its job then
        // skips it) and its job removed; a running run's worker sees the request at its next
        // heartbeat.
        if (await store.runs.requestCancel(runId, reason, now()).catch(() => false)) {
          const record = await store.runs.get(runId).catch(() => undefined);
          if (record?.status === "cancelled" && (await queue.withdraw(jobId).catch(() => false)))
            withdraw(record);
          return;
        }
        // Neither queued nor running: a resume no worker has taken up yet is withdrawn.
        if (await queue.withdraw(jobId).catch(() => false)) {
          withdraw(reason);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    })();
  };
  if (options.signal?.aborted) cancel(String(options.signal.reason ?? "cancelled"));
  else
    options.signal?.addEventListener("abort", () => cancel(String(options.signal?.reason ?? "cancelled")), {
      once: true,
    });

  const events = () => polledEvents(store.events, runId, done, { pollMs });
  if (options.onEvent) {
    const onEvent = options.onEvent;
    void (async () => {
      for await (const event of events()) onEvent(event);
    })().catch(() => {});
  }
  return {
    runId,
    remote: true,
    enqueued: options.enqueued,
    done,
    cancel,
    events,
    [Symbol.asyncIterator]: () => events()[Symbol.asyncIterator](),
  };
}
