/**
 * What travels through the run queue: a job asks a worker to run research (a new run, with its
 * question and request) or to resume a stored run; a worker answers with how the run ended.
 * Both are JSON, checked with zod where they cross the queue.
 */

import { z } from "zod";
import { runStatusSchema } from "../core/run.ts";
import { usageTotalsSchema } from "../core/usage.ts";

/** The name of the queue's jobs. */
export const RUN_JOB = "run";

/** A job: run `question` with `options` as run `runId`, or take up the stored run `runId`. */
export const runJobSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("research"),
    runId: z.string().min(1),
    question: z.string().min(1),
    /** The research options (JSON: the request without the question, callbacks or signal). */
    options: z.record(z.string(), z.unknown()),
    enqueuedAt: z.string(),
  }),
  z.object({
    kind: z.literal("resume"),
    runId: z.string().min(1),
    enqueuedAt: z.string(),
    /**
     * Enqueued by a sweeper for a run whose owner went silent (not asked for by a user): the run
     * is taken up only while it is still running or interrupted, never a cancelled or ended one.
     */
    takeover: z.boolean().optional(),
  }),
]);
/** A job of the run queue. */
export type RunJob = z.infer<typeof runJobSchema>;

/** How a queued run ended, as its worker reports it. */
export const runJobResultSchema = z.object({
  runId: z.string(),
  status: runStatusSchema,
  stopReason: z.string(),
  /** The report as Markdown, when the run wrote one. */
  markdown: z.string().nullable(),
  /** The report document (JSON), when the run wrote one. */
  report: z.unknown().nullable(),
  paths: z.array(z.string()),
  usage: usageTotalsSchema.nullable(),
  error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }).nullable(),
  /** The worker that ran it (`host:pid`), and how long the job waited in the queue (ms). */
  worker: z.string(),
  queueWaitMs: z.number(),
  /** True when the worker took up an earlier attempt (its journal replayed). */
  resumed: z.boolean(),
});
/** How a queued run ended. */
export type RunJobResult = z.infer<typeof runJobResultSchema>;
