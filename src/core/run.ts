/**
 * The Run record: one research task and its outcome.
 */

import { z } from "zod";
import { usageTotalsSchema } from "./usage.ts";

/**
 * Lifecycle of a run. `queued`: enqueued for a worker that has not taken it yet (no owner, no
 * events). `interrupted`: the process running it is gone (killed, crashed) without recording an
 * end; such a run can be resumed. `awaiting-review`: a run with `reviewPlan` stopped after its
 * plan until the user approves, edits or rejects it (no process holds it meanwhile).
 */
export const runStatusSchema = z.enum([
  "queued",
  "running",
  "completed",
  "failed",
  "cancelled",
  "interrupted",
  "awaiting-review",
]);
/** Lifecycle of a run. */
export type RunStatus = z.infer<typeof runStatusSchema>;

/**
 * The process a run belongs to: its host, pid and the process's start time (ISO), and its lease:
 * the run is the owner's while its heartbeat is younger than `leaseMs` (runs recorded without one
 * are judged by the reader's own bound).
 */
export const runOwnerSchema = z.object({
  host: z.string(),
  pid: z.number().int(),
  startedAt: z.string(),
  leaseMs: z.number().int().positive().optional(),
});
/** The process a run belongs to. */
export type RunOwner = z.infer<typeof runOwnerSchema>;

/** A stored run. */
export const runRecordSchema = z.object({
  id: z.string(),
  query: z.string(),
  strategy: z.string(),
  options: z.record(z.string(), z.unknown()),
  status: runStatusSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  stopReason: z.string().nullable(),
  usage: usageTotalsSchema.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The process that runs (or ran) it. */
  owner: runOwnerSchema.nullable().default(null),
  /** When its owner last said it was alive (ISO). */
  heartbeatAt: z.string().nullable().default(null),
});
/** A stored run. */
export type RunRecord = z.infer<typeof runRecordSchema>;
