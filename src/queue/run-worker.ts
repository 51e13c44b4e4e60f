/**
 * `dossier worker`: a process that takes runs from the queue and executes them with its own
 * Dossier (the shared PostgreSQL store, its models and tools). A new run starts from its request;
 * a run that was started before — its job retried after a retryable failure, or found stalled
 * because the worker running it died — is resumed from its journal, so no completed model or tool
 * call is made twice. A run whose owner may still be alive is taken over only once its lease has
 * expired (and then by one worker: the store's claim is conditional on the heartbeat it read). A
 * job whose run is under way elsewhere, under a lease that holds, ends at once and leaves the run
 * to its owner. Cancelling through the store reaches the run at its next heartbeat, and before
 * its next model call when the worker's limiter passes the cancel gate (cancel-gate.ts).
 */

import { hostname } from "node:os";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import { type DossierError, toDossierError } from "../core/errors.ts";
import type { RunRecord } from "../core/run.ts";
import type { Dossier } from "../runtime/dossier.ts";
import type { ResearchHandle, ResearchResult } from "../runtime/research-handle.ts";
import { currentOwner, ownerGone, runHeartbeatMs, STALE_HEARTBEAT_MS } from "../runtime/run-liveness.ts";
import type { CancelGate } from "./cancel-gate.ts";
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
  /**
   * The Dossier that runs a job's run, asked per run (default: `dossier`): a rollout of the
   * rollout service runs in its policy's (train/service/policy-dossiers.ts).
   */
  runnerFor?: (runId: string) => Promise<Dossier>;
  /** The queue: `redis://host:port[?prefix=name]`. */
  url: string;
  /** Runs at once in this process. Default 1. */
  concurrency?: number;
  /**
   * How long a job's lock lasts without renewal: a worker silent this long has stalled (ms).
   * Default 30 000. (The lease of the runs themselves is the process's: `setRunLease`, which
   * `dossier worker` sets to the same `--lock-ms`.)
   */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for (ms). Default: one heartbeat of the lock ({@link runHeartbeatMs}). */
  stalledIntervalMs?: number;
  /** The lease of a running run whose owner recorded none (ms). Default STALE_HEARTBEAT_MS. */
  staleAfterMs?: number;
  /** How often the worker's heartbeat is written to the registry (ms). Default WORKER_HEARTBEAT_MS. */
  heartbeatMs?: number;
  /**
   * How often this worker's sweeper looks for runs the queue lost (ms; see sweeper.ts). Default
   * SWEEP_MS; 0 runs no sweeper.
   */
  sweepMs?: number;
  /** The gate of this worker's model requests (its limiter wrapped by it): the worker gives it its check. */
  cancelGate?: CancelGate;
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

  /**
   * The Dossier of a run (see `runnerFor`). One that cannot be made (a policy's key variable not
   * set on this worker) fails the job for good, the run failed if it had not started.
   */
  const runnerOf = async (runId: string, record: RunRecord | undefined): Promise<Dossier> => {
    if (!options.runnerFor) return dossier;
    try {
      return await options.runnerFor(runId);
    } catch (error) {
      const e = toDossierError(error);
      note({ type: "error", runId, message: `${e.code}: ${e.message}` });
      if (e.retryable) throw e;
      if (record?.status === "queued") {
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
    }
  };

  const processJob = async (job: Job, _token?: string, signal?: AbortSignal): Promise<RunJobResult> => {
    const data = runJobSchema.parse(job.data);
    const { runId } = data;
    const queueWaitMs = Math.max(0, (job.processedOn ?? Date.now()) - job.timestamp);
    let record = await dossier.store.runs.get(runId);
    if (record?.status === "running") {
      // Its owner died (the job stalled, or a sweeper handed the run on): take it over once its
      // lease has expired. An owner whose lease holds keeps the run: this job leaves it to it.
      const taken = await takeOver(runId, signal);
      if (taken.elsewhere) return await resultOfRecord(taken.record, queueWaitMs, true);
      record = taken.record;
    }
    const takeover = data.kind === "resume" && data.takeover === true;
    if (
      record?.status === "completed" ||
      // Stopped after its plan (a job handed on after its worker recorded that): no job waits
      // for the review; the answer enqueues the run's resume.
      record?.status === "awaiting-review" ||
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
    const runner = await runnerOf(runId, record);
    note({ type: "start", runId, resumed, attempt: job.attemptsMade + 1 });
    const handle = resumed
      ? runner.runs.resume(runId, signal ? { signal } : {})
      : runner.research(data.kind === "research" ? data.question : "", {
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
   * A run recorded as running under another owner: once that owner is gone (its process ended
   * on this host, or its lease expired) the run is claimed for this process — atomically, on the
   * condition that its heartbeat is still the one read, so of several workers taking it over one
   * wins — and recorded interrupted, ready to be resumed. While the owner's lease holds, the run
   * is left to it (`elsewhere`); this process's own run is too.
   */
  const takeOver = async (
    runId: string,
    signal?: AbortSignal,
  ): Promise<{ record: RunRecord | undefined; elsewhere: boolean }> => {
    for (;;) {
      const record = await dossier.store.runs.get(runId);
      if (record?.status !== "running") return { record, elsewhere: false };
      const now = dossier.clock.now();
      if (!ownerGone(record, now, staleAfterMs)) return { record, elsewhere: true };
      const at = new Date(now).toISOString();
      const staleBefore = record.heartbeatAt
        ? new Date(Date.parse(record.heartbeatAt) + 1).toISOString()
        : at;
      const claimed = await dossier.store.runs.claim(runId, currentOwner(), at, { staleBefore });
      if (claimed) {
        const interrupted = await dossier.store.runs.update(runId, {
          status: "interrupted",
          updatedAt: at,
          stopReason: "interrupted: its worker stopped (its lease expired)",
        });
        return { record: interrupted, elsewhere: false };
      }
      // Another worker took it first, or its owner beat again: read it again.
      if (signal?.aborted) throw new Error(`run ${runId} is being taken over elsewhere`);
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
    stalledInterval: options.stalledIntervalMs ?? runHeartbeatMs(lockDuration),
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
  // Before a model request is sent: the cancellation requests of the runs under way here (read
  // with each run's heartbeat), each cancelled run aborted at once.
  options.cancelGate?.attach(async () => {
    const owner = currentOwner();
    const at = new Date(dossier.clock.now()).toISOString();
    await Promise.all(
      [...running].map(async ([runId, handle]) => {
        const answer = await dossier.store.runs.heartbeat(runId, owner, at);
        if (answer.held && answer.cancelRequested) handle.cancel(answer.cancelRequested);
      }),
    );
  });
  // The sweeper: runs the store records as queued or running whose job the queue lost.
  const sweepQueue = options.sweepMs === 0 ? null : openRunQueue({ url: options.url });
  const sweeper = sweepQueue
    ? startSweeper({
        queue: sweepQueue,
        store: dossier.store,
        clock: dossier.clock,
        staleAfterMs,
        ...(options.sweepMs ? { periodMs: options.sweepMs } : {}),
        // Leases are looked at every heartbeat (or sweep, when that is shorter).
        leasePeriodMs: Math.min(runHeartbeatMs(), options.sweepMs || Number.POSITIVE_INFINITY),
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
