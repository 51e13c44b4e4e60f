/**
 * A research run executed by a worker, as the enqueueing process holds it: the same
 * ResearchHandle as a run in this process (run id at once, `done`, `cancel`, events), with events
 * read from the shared store and the outcome from the job's result. Cancelling a queued run
 * records it cancelled and withdraws its job; a running run's worker is asked through the store.
 */

import { DossierError, toDossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { ReportDocument } from "../core/report.ts";
import type { RunRecord } from "../core/run.ts";
import type { ResearchHandle, ResearchResult } from "../runtime/research-handle.ts";
import type { Store } from "../store/types.ts";
import type { RunJobResult } from "./jobs.ts";
import { polledEvents } from "./polled-events.ts";
import type { RunQueue } from "./run-queue.ts";

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
  clock?: { now(): number };
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

  const done = (async (): Promise<ResearchResult> => {
    const jobId = await options.enqueued;
    let outcome: RunJobResult | RunRecord;
    try {
      outcome = await Promise.race([queue.finished(jobId), withdrawn]);
    } catch (error) {
      if (error instanceof DossierError && error.code === "CANCELLED") throw error;
      const record = await store.runs.get(runId);
      if (!record) throw errorOfFailure(error);
      // The job failed for good: the run's record says how its last attempt ended.
      const failure = record.error ?? { code: "INTERNAL", message: (error as Error).message };
      return {
        runId,
        status: record.status,
        stopReason: record.stopReason ?? record.status,
        report: null,
        markdown: null,
        paths: [],
        usage: record.usage,
        error: new DossierError(failure.code as never, failure.message),
        record,
      };
    }
    if (!("worker" in outcome)) {
      // Cancelled while queued: no worker ran it.
      return {
        runId,
        status: outcome.status,
        stopReason: outcome.stopReason ?? outcome.status,
        report: null,
        markdown: null,
        paths: [],
        usage: outcome.usage,
        error: null,
        record: outcome,
      };
    }
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
    };
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
      while (!ended) {
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
