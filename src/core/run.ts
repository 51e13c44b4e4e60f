/**
 * The Run record: one research task and its outcome.
 */

import { z } from "zod";
import { usageTotalsSchema } from "./usage.ts";

/** Lifecycle of a run. */
export const runStatusSchema = z.enum(["running", "completed", "failed", "cancelled"]);
/** Lifecycle of a run. */
export type RunStatus = z.infer<typeof runStatusSchema>;

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
});
/** A stored run. */
export type RunRecord = z.infer<typeof runRecordSchema>;
