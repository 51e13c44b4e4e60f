/**
 * A run queue held in memory, for unit tests of what drives the queue (the sweeper, the
 * reconciler): the {@link RunQueue} interface with its promises kept — a job already queued
 * under an id, in any state, is left as it is; jobs are checked with the job schema — and hooks
 * to lose jobs, move them between states and act between two readings of the live runs.
 */

import { DossierError } from "../../src/core/errors.ts";
import { type RunJob, type RunJobResult, runJobSchema } from "../../src/queue/jobs.ts";
import { parseRedisUrl } from "../../src/queue/redis-target.ts";
import { LIVE_JOB_STATES, type QueueStatus, type RunQueue } from "../../src/queue/run-queue.ts";

/** A job as the memory queue holds it. */
export interface MemoryJob {
  id: string;
  job: RunJob;
  /** Put before the jobs waiting. */
  first: boolean;
  state: string;
}

/** The memory queue, with what a test needs to see and steer it. */
export interface MemoryRunQueue extends RunQueue {
  /** Every job ever added, in the order added (a duplicate id adds nothing). */
  readonly added: MemoryJob[];
  /** How many times the live runs were read. */
  readonly readings: number;
  /**
   * Called at each reading of the live runs with its number (1, 2, …) before it is taken; what
   * it returns, when not undefined, is the reading (a job moving between states, seen by neither
   * state's list).
   */
  onReading?: (n: number) => Promise<Set<string> | undefined> | Set<string> | undefined;
  /** Sets a job's state (`active`, `completed`, `failed`…). */
  settle(jobId: string, state: string): void;
  /** Loses every job (Redis restarted without persistence, FLUSHALL). */
  lose(): void;
}

const LIVE = new Set<string>(LIVE_JOB_STATES);

/** A fresh memory queue. */
export function memoryRunQueue(): MemoryRunQueue {
  const jobs = new Map<string, MemoryJob>();
  const added: MemoryJob[] = [];
  let readings = 0;
  const live = () => new Set([...jobs.values()].filter((j) => LIVE.has(j.state)).map((j) => j.job.runId));
  const queue: MemoryRunQueue = {
    target: parseRedisUrl("redis://127.0.0.1:6379?prefix=memory"),
    added,
    get readings() {
      return readings;
    },
    async enqueue(job, options = {}) {
      const data = runJobSchema.parse(job);
      const jobId =
        options.jobId ??
        (data.kind === "research" ? data.runId : `${data.runId}.resume-${Date.parse(data.enqueuedAt)}`);
      if (!jobs.has(jobId)) {
        const entry = { id: jobId, job: data, first: options.first === true, state: "waiting" };
        jobs.set(jobId, entry);
        added.push(entry);
      }
      return jobId;
    },
    async jobState(jobId) {
      return jobs.get(jobId)?.state ?? null;
    },
    async liveRuns() {
      readings += 1;
      return (await queue.onReading?.(readings)) ?? live();
    },
    async finished(jobId): Promise<RunJobResult> {
      throw new DossierError("NOT_FOUND", `the memory queue runs no job (${jobId})`);
    },
    async withdraw(jobId) {
      const entry = jobs.get(jobId);
      if (entry?.state !== "waiting") return false;
      jobs.delete(jobId);
      return true;
    },
    async status(): Promise<QueueStatus> {
      const count = (state: string) => [...jobs.values()].filter((j) => j.state === state).length;
      return {
        waiting: count("waiting"),
        active: count("active"),
        delayed: count("delayed"),
        completed: count("completed"),
        failed: count("failed"),
        workers: [],
      };
    },
    async ready() {},
    async close() {},
    settle(jobId, state) {
      const entry = jobs.get(jobId);
      if (!entry) throw new Error(`no job ${jobId}`);
      entry.state = state;
    },
    lose() {
      jobs.clear();
    },
  };
  return queue;
}
