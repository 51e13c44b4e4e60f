/**
 * `dossier worker`: a process that takes runs from the queue and executes them with its own
 * Dossier (the shared PostgreSQL store, its models and tools). A new run starts from its request;
 * a run that was started before — its job retried after a retryable failure, or found stalled
 * because the worker running it died — is resumed from its journal, so no completed model or tool
 * call is made twice. A run whose owner may still be alive is taken over only once its heartbeat
 * has gone stale. Cancelling through the store reaches the run at its next heartbeat.
 */

import { hostname } from "node:os";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import { type DossierError, toDossierError } from "../core/errors.ts";
import type { RunRecord } from "../core/run.ts";
import type { Dossier } from "../runtime/dossier.ts";
import type { ResearchHandle, ResearchResult } from "../runtime/research-handle.ts";
import { ownerGone, STALE_HEARTBEAT_MS } from "../runtime/run-liveness.ts";
import { type RunJobResult, runJobSchema } from "./jobs.ts";
import { parseRedisUrl } from "./redis-target.ts";
import { storedOutcome } from "./run-outcome.ts";
import { openRunQueue, RUN_QUEUE } from "./run-queue.ts";
import { type SweepNote, startSweeper } from "./sweeper.ts";
import { announceWorker } from "./worker-registry.ts";

/** What a worker reports as it works. */
export type WorkerNote =
  | { type: "start"; runId: string; resumed: boolean; attempt: number }
  | { type: "end"; runId: string; status: string; stopReason: string }
  | { type: "stalled"; runId: string }
  | ({ type: "swept" } & SweepNote)
  | { type: "error"; runId: string | null; message: string };

/** Options of {@link startRunWorker}. */
export interface RunWorkerOptions {
  dossier: Dossier;
  /** The queue: `redis://host:port[?prefix=name]`. */
  url: string;
  /** Runs at once in this process. Default 1. */
  concurrency?: number;
  /** How long a job's lock lasts without renewal: a worker silent this long has stalled (ms). Default 30 000. */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for (ms). Default: the lock duration. */
  stalledIntervalMs?: number;
  /** A run whose owner's heartbeat is older than this is taken over (ms). Default STALE_HEARTBEAT_MS. */
  staleAfterMs?: number;
  /** How often the worker's heartbeat is written to the registry (ms). Default WORKER_HEARTBEAT_MS. */
  heartbeatMs?: number;
  /**
   * How often this worker's sweeper looks for runs the queue lost (ms; see sweeper.ts). Default
   * SWEEP_MS; 0 runs no sweeper.
   */
  sweepMs?: number;
  onNote?: (note: WorkerNote) => void;
}

/** A running worker. */
export interface RunWorker {
  /** `host:pid`. */
  readonly name: string;
  /** Ids of the runs under way here. */
  running(): string[];
  /** Resolves once connected to Redis. */
  ready(): Promise<void>;
  /** Runs the sweeper once now (what it re-enqueued or handed on). */
  sweep(): Promise<SweepNote[]>;
  /** Stops taking jobs and waits for the runs under way (`force`: cancels nothing, waits for nothing). */
  close(force?: boolean): Promise<void>;
}

/** Starts a worker on the run queue. */
export function startRunWorker(options: RunWorkerOptions): RunWorker {
  const { dossier } = options;
  const target = parseRedisUrl(options.url);
  const name = `${hostname()}:${process.pid}`;
  const staleAfterMs = options.staleAfterMs ?? STALE_HEARTBEAT_MS;
  const lockDuration = options.lockDurationMs ?? 30_000;
  const running = new Map<string, ResearchHandle>();
  /** Writes the worker's heartbeat now (once it is announced). */
  let beat = () => {};
  const note = (n: WorkerNote) => options.onNote?.(n);

  const processJob = async (job: Job, _token?: string, signal?: AbortSignal): Promise<RunJobResult> => {
    const data = runJobSchema.parse(job.data);
    const { runId } = data;
    const queueWaitMs = Math.max(0, (job.processedOn ?? Date.now()) - job.timestamp);
    let record = await dossier.store.runs.get(runId);
    // A worker that lost the job (stalled while alive) may still be running it: wait for it.
    if (record?.status === "running") record = await waitForOwner(runId, signal);
    const takeover = data.kind === "resume" && data.takeover === true;
    if (
      record?.status === "completed" ||
      (record?.status === "cancelled" && data.kind === "research") ||
      (takeover && record?.status !== "interrupted")
    ) {
      // Its worker recorded the end but lost the job before marking it done; or it was
      // cancelled while queued (never started: no owner); or a takeover found the run no longer
      // in need of one. A resume asked for by a user takes a cancelled run up again.
      return await resultOfRecord(record, queueWaitMs, record?.owner != null);
    }
    if (data.kind === "resume" && record?.status === "queued")
      throw new UnrecoverableError(`run ${runId} is queued, not started; there is nothing to resume`);
    // A queued run (stored by its enqueuer, not started yet) starts from its request.
    const resumed = record !== undefined && record.status !== "queued";
    if (!record && data.kind === "resume")
      throw new UnrecoverableError(`run ${runId} is not in the store; nothing to resume`);
    note({ type: "start", runId, resumed, attempt: job.attemptsMade + 1 });
    const handle = resumed
      ? dossier.runs.resume(runId, signal ? { signal } : {})
      : dossier.research(data.kind === "research" ? data.question : "", {
          ...(data.kind === "research" ? data.options : {}),
          runId,
          ...(signal ? { signal } : {}),
        });
    running.set(runId, handle);
    beat();
    let result: ResearchResult;
    try {
      result = await handle.done;
    } catch (error) {
      const now = await dossier.store.runs.get(runId);
      // Cancelled while it was being started: nothing ran, and nothing is to run.
      if (now?.status === "cancelled" && !resumed) return await resultOfRecord(now, queueWaitMs, false);
      // Nothing ran: the request or this worker's configuration is wrong; retrying will not help.
      const e = toDossierError(error);
      note({ type: "error", runId, message: `${e.code}: ${e.message}` });
      if (now?.status === "queued") {
        // Recorded as failed, so it is not left queued.
        const at = new Date(dossier.clock.now()).toISOString();
        await dossier.store.runs
          .update(runId, {
            status: "failed",
            updatedAt: at,
            finishedAt: at,
            stopReason: `error: ${e.code}`,
            error: { code: e.code, message: e.message },
          })
          .catch(() => {});
      }
      throw new UnrecoverableError(`${e.code}: ${e.message}`);
    } finally {
      running.delete(runId);
      beat();
    }
    note({ type: "end", runId, status: result.status, stopReason: result.stopReason });
    if (result.status === "failed") {
      const e = result.error as DossierError | null;
      const message = `${e?.code ?? "INTERNAL"}: ${e?.message ?? result.stopReason}`;
      // A retryable failure is tried again (resumed from the journal) while attempts remain.
      if (e?.retryable) throw new Error(message);
      throw new UnrecoverableError(message);
    }
    return {
      runId,
      status: result.status,
      stopReason: result.stopReason,
      markdown: result.markdown,
      report: null,
      paths: result.paths,
      usage: result.usage,
      error: null,
      worker: name,
      queueWaitMs,
      resumed,
    };
  };

  /**
   * A run recorded as running belongs to a worker that stopped renewing its job (BullMQ handed
   * the job on): waits until that owner is gone — its process ended on this host, or its
   * heartbeat is stale — and records the run as interrupted, ready to be resumed.
   */
  const waitForOwner = async (runId: string, signal?: AbortSignal): Promise<RunRecord | undefined> => {
    for (;;) {
      const record = await dossier.store.runs.get(runId);
      if (record?.status !== "running") return record;
      const now = dossier.clock.now();
      if (ownerGone(record, now, staleAfterMs)) {
        return dossier.store.runs.update(runId, {
          status: "interrupted",
          updatedAt: new Date(now).toISOString(),
          stopReason: "interrupted: its worker stopped (the job stalled)",
        });
      }
      if (signal?.aborted) throw new Error(`run ${runId} is still running elsewhere`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  const resultOfRecord = async (
    record: RunRecord | undefined,
    queueWaitMs: number,
    resumed: boolean,
  ): Promise<RunJobResult> => {
    if (!record) throw new UnrecoverableError("the run is not in the store");
    const { markdown, paths } = await storedOutcome(dossier.store, record);
    return {
      runId: record.id,
      status: record.status,
      stopReason: record.stopReason ?? record.status,
      markdown,
      report: null,
      paths,
      usage: record.usage,
      error: record.error ? { ...record.error, retryable: false } : null,
      worker: name,
      queueWaitMs,
      resumed,
    };
  };

  const worker = new Worker(RUN_QUEUE, processJob, {
    connection: target.connection,
    prefix: target.prefix,
    name,
    concurrency: options.concurrency ?? 1,
    lockDuration,
    stalledInterval: options.stalledIntervalMs ?? lockDuration,
    maxStalledCount: 3,
  });
  worker.on("error", (error) => note({ type: "error", runId: null, message: error.message }));
  worker.on("stalled", (jobId) => note({ type: "stalled", runId: jobId }));
  // A worker delivers webhooks too: retries, and those other processes left pending.
  dossier.webhooks?.start();
  // The worker's heartbeat in the registry: what it is and what it runs (see /v1/workers).
  const startedAt = new Date().toISOString();
  const announcement = announceWorker({
    target,
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    info: () => ({
      name,
      host: hostname(),
      pid: process.pid,
      concurrency: options.concurrency ?? 1,
      running: [...running.keys()],
      startedAt,
    }),
  });
  beat = () => void announcement.beat().catch(() => {});
  // The sweeper: runs the store records as queued or running whose job the queue lost.
  const sweepQueue = options.sweepMs === 0 ? null : openRunQueue({ url: options.url });
  const sweeper = sweepQueue
    ? startSweeper({
        queue: sweepQueue,
        store: dossier.store,
        clock: dossier.clock,
        staleAfterMs,
        ...(options.sweepMs ? { periodMs: options.sweepMs } : {}),
        onNote: (n) => note({ type: "swept", ...n }),
        onError: (error) => note({ type: "error", runId: null, message: `sweep: ${error.message}` }),
      })
    : null;
  const ready = worker.waitUntilReady().then(() => announcement.beat());
  ready.catch(() => {});

  return {
    name,
    running: () => [...running.keys()],
    ready: () => ready.then(() => {}),
    sweep: () => sweeper?.sweep() ?? Promise.resolve([]),
    async close(force = false) {
      await sweeper?.stop();
      await worker.close(force);
      await announcement.stop();
      await sweepQueue?.close();
    },
  };
}
