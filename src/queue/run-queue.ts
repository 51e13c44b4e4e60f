/**
 * The run queue on Redis (BullMQ): `serve` and `batch` enqueue runs here instead of running them,
 * and `dossier worker` processes take them (see run-worker.ts). A new run's job has the run's id,
 * so a run is queued at most once; a resume's job is named after the run and the time. Jobs are retried (a failed run is resumed from its
 * journal) and a job whose worker died is found stalled and handed to another worker.
 */

import { type Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { DossierError } from "../core/errors.ts";
import { RUN_JOB, type RunJob, type RunJobResult, runJobResultSchema, runJobSchema } from "./jobs.ts";
import { parseRedisUrl, type RedisTarget } from "./redis-target.ts";
import { listWorkers, registryClient, type WorkerInfo } from "./worker-registry.ts";

/** The queue's name (its keys are `<prefix>:dossier-runs:…`). */
export const RUN_QUEUE = "dossier-runs";

/** Options of {@link openRunQueue}. */
export interface RunQueueOptions {
  /** `redis://host:port[?prefix=name]`. */
  url: string;
  /** Attempts per job (the first run and its resumes after a retryable failure). Default 3. */
  attempts?: number;
  /** Delay before the first retry (ms, doubled each time). Default 1000. */
  backoffMs?: number;
  /** How long `ready` waits for Redis to answer (ms). Default 5000. */
  readyTimeoutMs?: number;
}

/** Jobs by state, and the workers alive. */
export interface QueueStatus {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
  /** Worker processes whose heartbeat is current, by name, with the runs under way in each. */
  workers: WorkerInfo[];
}

/** The states of a job that will still be processed (or is being processed). */
export const LIVE_JOB_STATES = ["waiting", "active", "delayed", "prioritized", "waiting-children"] as const;

/** The enqueueing side of the run queue. */
export interface RunQueue {
  readonly target: RedisTarget;
  /**
   * Enqueues a job; returns its id (a job already queued under that id, in any state, is left as
   * it is). `jobId` overrides the default id (a new run's id; a resume's id and time); `first`
   * puts it before the jobs waiting (a run taken over goes on before new runs start).
   */
  enqueue(job: RunJob, options?: { jobId?: string; first?: boolean }): Promise<string>;
  /** The state of a job (`waiting`, `active`, `completed`, `failed`…), or null when there is none. */
  jobState(jobId: string): Promise<string | null>;
  /**
   * The ids of the runs that have a job still to be processed or under way (read at most once
   * per `maxAgeMs`, default 0: every call reads Redis).
   */
  liveRuns(maxAgeMs?: number): Promise<Set<string>>;
  /** Waits until the job has finished; rejects with its last failure. */
  finished(jobId: string): Promise<RunJobResult>;
  /** Removes the job when no worker has taken it yet; false otherwise. */
  withdraw(jobId: string): Promise<boolean>;
  /** Queue depth, active jobs and workers. */
  status(): Promise<QueueStatus>;
  /** Resolves once Redis answers (within `timeoutMs`, default the queue's); STORE_ERROR naming the server otherwise. */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens the run queue at `options.url` (connections are made on first use). */
export function openRunQueue(options: RunQueueOptions): RunQueue {
  const target = parseRedisUrl(options.url);
  const queue = new Queue(RUN_QUEUE, { connection: target.connection, prefix: target.prefix });
  queue.on("error", () => {});
  // Every handle waiting on a job listens on the queue for a while: hundreds at once is normal.
  queue.setMaxListeners(0);
  let events: QueueEvents | null = null;
  let registry: Redis | null = null;
  let live: { at: number; runs: Set<string> } | null = null;
  const queueEvents = () => {
    if (!events) {
      events = new QueueEvents(RUN_QUEUE, { connection: target.connection, prefix: target.prefix });
      events.on("error", () => {});
      events.setMaxListeners(0);
    }
    return events;
  };
  const unreachable = (cause: unknown) =>
    new DossierError(
      "STORE_ERROR",
      `cannot use the run queue at ${target.display}: ${(cause as Error).message || String(cause)}`,
      { cause, details: { queue: target.display } },
    );

  return {
    target,
    async enqueue(job, enqueueOptions = {}) {
      const data = runJobSchema.parse(job);
      const jobId =
        enqueueOptions.jobId ??
        (data.kind === "research" ? data.runId : `${data.runId}.resume-${Date.parse(data.enqueuedAt)}`);
      try {
        await queue.add(RUN_JOB, data, {
          jobId,
          attempts: options.attempts ?? 3,
          backoff: { type: "exponential", delay: options.backoffMs ?? 1_000 },
          removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
          removeOnFail: { age: 30 * 24 * 3600 },
          ...(enqueueOptions.first ? { lifo: true } : {}),
        });
      } catch (cause) {
        throw unreachable(cause);
      }
      return jobId;
    },
    async finished(jobId) {
      const job = (await queue.getJob(jobId)) as Job | undefined;
      if (!job) throw new DossierError("NOT_FOUND", `no queued job ${jobId}`, { details: { jobId } });
      // The events' stream must be read before the check for an already finished job: a job
      // finishing in between would otherwise be missed and the wait would never end.
      const listener = queueEvents();
      await listener.waitUntilReady();
      const value = await untilFinished(queue, listener, jobId);
      return runJobResultSchema.parse(value);
    },
    async jobState(jobId) {
      const job = (await queue.getJob(jobId)) as Job | undefined;
      if (!job) return null;
      const state = await job.getState();
      return state === "unknown" ? null : state;
    },
    async liveRuns(maxAgeMs = 0) {
      const now = Date.now();
      if (live && now - live.at <= maxAgeMs) return live.runs;
      const reading = (async () => {
        const jobs = (await queue.getJobs([...LIVE_JOB_STATES])) as Array<Job | undefined>;
        const runs = new Set<string>();
        for (const job of jobs) {
          const runId = (job?.data as { runId?: unknown } | undefined)?.runId;
          if (typeof runId === "string") runs.add(runId);
        }
        return runs;
      })();
      const runs = await reading;
      live = { at: now, runs };
      return runs;
    },
    async withdraw(jobId) {
      const job = (await queue.getJob(jobId)) as Job | undefined;
      if (!job) return false;
      const state = await job.getState();
      if (state !== "waiting" && state !== "delayed" && state !== "prioritized") return false;
      try {
        return (await queue.remove(jobId)) === 1;
      } catch {
        return false; // a worker took it meanwhile
      }
    },
    async status() {
      const counts = await queue.getJobCounts(
        "waiting",
        "active",
        "delayed",
        "completed",
        "failed",
        "prioritized",
      );
      registry ??= registryClient(target);
      const workers = await listWorkers(registry, target);
      return {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        completed: counts.completed ?? 0,
        failed: counts.failed ?? 0,
        workers,
      };
    },
    async ready(timeoutMs) {
      // The client retries while Redis is away, so the answer is awaited for a while only.
      const ms = timeoutMs ?? options.readyTimeoutMs ?? 5_000;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      });
      try {
        await Promise.race([queue.getJobCounts("waiting"), timeout]);
      } catch (cause) {
        throw unreachable(cause);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await Promise.allSettled([
        queue.close(),
        (events as QueueEvents | null)?.close(),
        registry?.quit().catch(() => registry?.disconnect()),
      ]);
    },
  };
}

/**
 * The return value of job `jobId` once it has finished (rejects with its failure). BullMQ's own
 * `Job.waitUntilFinished` checks the job inside an async Promise executor, so a Redis that goes
 * away during that check becomes an unhandled rejection no caller can catch; this waits on the
 * same events and checks the job's state with every failure reaching the caller.
 */
function untilFinished(queue: Queue, listener: QueueEvents, jobId: string): Promise<unknown> {
  // BullMQ emits a job's own `completed:<id>` / `failed:<id>` events, which its types do not name.
  const events = listener as unknown as NodeJS.EventEmitter;
  return new Promise((resolve, reject) => {
    const completed = `completed:${jobId}`;
    const failed = `failed:${jobId}`;
    const cleanup = () => {
      events.removeListener(completed, onCompleted);
      events.removeListener(failed, onFailed);
    };
    const onCompleted = (args: { returnvalue: unknown }) => {
      cleanup();
      resolve(typeof args.returnvalue === "string" ? parseJson(args.returnvalue) : args.returnvalue);
    };
    const onFailed = (args: { failedReason?: string }) => {
      cleanup();
      reject(new Error(args.failedReason ?? `job ${jobId} failed`));
    };
    events.on(completed, onCompleted);
    events.on(failed, onFailed);
    // The job may have finished before the listener was ready: its state says so. The state is
    // read first and the job after it, so a job that finished between the two reads is read with
    // its return value (a job read while still active carries none).
    (async () => {
      const state = await queue.getJobState(jobId);
      if (state !== "completed" && state !== "failed") return;
      const job = (await queue.getJob(jobId)) as Job | undefined;
      if (!job) return;
      if (state === "completed") onCompleted({ returnvalue: job.returnvalue });
      else onFailed({ failedReason: job.failedReason });
    })().catch((error: unknown) => {
      cleanup();
      reject(error);
    });
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
