/**
 * The progress of a rollout batch as events, numbered from 1 (`seq`), kept with the batch and
 * sent over Server-Sent Events: `rollout-started` when a rollout's run starts, `rollout-ended`
 * when it has ended (with its status), `group-scored` when every rollout of a row has ended
 * and the group's rewards and advantages are known, and `batch-end` last. Every rollout that
 * ran has exactly one `rollout-started` before its one `rollout-ended`; a rollout that never
 * started (refused as stale, or cancelled while waiting) has only its `rollout-ended`. Every
 * group has exactly one `group-scored`, after the ends of its rollouts: its samples with their
 * rewards and advantages, none when it has no sample (or the batch was cancelled), none and
 * the error when a judge failed.
 */

// zod as extended by @hono/zod-openapi: these schemas are named in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { rolloutStatusSchema } from "./batch-state.ts";

const base = { seq: z.number().int().positive(), batchId: z.string(), at: z.string() };
const rollout = {
  key: z.string().describe("`<row id>#<index in the group>`"),
  questionId: z.string(),
  index: z.number().int().nonnegative(),
};

/** One event of a rollout batch. */
export const batchEventSchema = z.discriminatedUnion("type", [
  z.object({ ...base, type: z.literal("rollout-started"), ...rollout, runId: z.string() }),
  z.object({
    ...base,
    type: z.literal("rollout-ended"),
    ...rollout,
    runId: z.string().nullable(),
    status: rolloutStatusSchema,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  }),
  z.object({
    ...base,
    type: z.literal("group-scored"),
    groupId: z.string(),
    /** The group's samples with their reward and advantage (null when the group was dropped). */
    rollouts: z.array(
      z.object({
        key: z.string(),
        runId: z.string(),
        reward: z.number(),
        advantage: z.number().nullable(),
      }),
    ),
    dropped: z.boolean(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  }),
  z.object({
    ...base,
    type: z.literal("batch-end"),
    status: z.enum(["completed", "cancelled"]),
    counts: z.record(z.string(), z.number()),
  }),
]);
/** One event of a rollout batch. */
export type BatchEvent = z.infer<typeof batchEventSchema>;
/** An event as it is appended (numbered and stamped by the log). */
export type NewBatchEvent = BatchEvent extends infer E
  ? E extends BatchEvent
    ? Omit<E, "seq" | "batchId" | "at">
    : never
  : never;

/** The events of one batch. */
export interface BatchEventLog {
  append(event: NewBatchEvent): BatchEvent;
  /** Events with `seq` greater than `afterSeq`. */
  after(afterSeq: number): BatchEvent[];
  /** Calls `listener` on every append; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** True once `batch-end` was appended. */
  ended(): boolean;
}

/** An event log for batch `batchId`. */
export function batchEventLog(batchId: string, now: () => number = Date.now): BatchEventLog {
  const events: BatchEvent[] = [];
  const listeners = new Set<() => void>();
  return {
    append(event) {
      const stored = {
        ...event,
        seq: events.length + 1,
        batchId,
        at: new Date(now()).toISOString(),
      } as BatchEvent;
      events.push(stored);
      for (const listener of [...listeners]) listener();
      return stored;
    },
    after: (afterSeq) => events.slice(Math.max(0, afterSeq)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ended: () => events.at(-1)?.type === "batch-end",
  };
}
