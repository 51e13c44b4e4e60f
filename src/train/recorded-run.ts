/**
 * A recorded run: one rollout of a strategy on a question row, kept in the form the rewards and
 * the curation read. It holds the model calls in order (see recorded-call.ts) and the parts of
 * the run's event log that rewards need — the tool calls with their outcome in order, the
 * sources and evidence gathered (observations), warp's trajectory steps and draft snapshots,
 * the final answer or report, and how the run ended. `recordedRunFromEvents` builds one from
 * an event log.
 */

import { z } from "zod";
import { evidenceSchema, sourceSchema } from "../core/source.ts";
import { questionRowSchema } from "./question-row.ts";
import { recordedCallSchema } from "./recorded-call.ts";

/** One tool call of the run and its outcome (from its tool-start / tool-end events). */
export const recordedToolCallSchema = z.object({
  callId: z.string().min(1),
  tool: z.string().min(1),
  provider: z.string().optional(),
  args: z.unknown().optional(),
  ok: z.boolean(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  scope: z.string().min(1).optional(),
  /** The tool call this one served (a page fetch inside a crawl): engine work, not the agent's call. */
  parentCallId: z.string().min(1).optional(),
  /** The step of the model call that asked for it (same scope), when known. */
  step: z.number().int().positive().optional(),
  /** The observation text the tool returned to the model, when it was kept. */
  observation: z.string().optional(),
});
/** One tool call of the run. */
export type RecordedToolCall = z.infer<typeof recordedToolCallSchema>;

/** One action of a policy's trajectory (warp's `trajectory-step` events). */
export const trajectoryActionSchema = z.object({
  step: z.number().int().positive(),
  action: z.string().min(1),
  state: z.unknown(),
  answer: z.unknown(),
  scope: z.string().min(1).optional(),
  /** Tool calls the action led to: those started in its scope before the scope's next action. */
  toolCallIds: z.array(z.string()),
  /**
   * The recorded model calls (not inside a tool call) that ended after the run's previous action
   * and before this one: for a strategy whose actions run one at a time (warp), the calls that
   * produced it, re-asks included, the accepted one last. Absent in runs recorded before it was.
   */
  callIds: z.array(z.string()).optional(),
});
/** One action of a policy's trajectory. */
export type TrajectoryAction = z.infer<typeof trajectoryActionSchema>;

/** An intermediate draft (warp's `draft-snapshot`) and its score (`draft-scored`), when scored. */
export const recordedDraftSchema = z.object({
  index: z.number().int().nonnegative(),
  /** The trajectory step after which it was taken. */
  step: z.number().int().nonnegative(),
  expansions: z.number().int().nonnegative(),
  markdown: z.string(),
  outline: z.unknown().optional(),
  score: z.number().nullable().optional(),
  /**
   * The last recorded model call before the snapshot (null: none), so a trajectory cut at this
   * draft keeps exactly the calls up to it. Absent in runs recorded before it was.
   */
  lastCallId: z.string().nullable().optional(),
});
/** An intermediate draft. */
export type RecordedDraft = z.infer<typeof recordedDraftSchema>;

/** Which rollout group a run belongs to. */
export const rolloutGroupSchema = z.object({
  /** The group id (usually the question row's id). */
  id: z.string().min(1),
  /** The run's index in its group, from 0. */
  index: z.number().int().nonnegative(),
});

/** A recorded run. */
export const recordedRunSchema = z
  .object({
    runId: z.string().min(1),
    strategy: z.string().min(1),
    row: questionRowSchema,
    group: rolloutGroupSchema.optional(),
    /** Model calls in the order they started. */
    calls: z.array(recordedCallSchema),
    /** Tool calls in the order they started. */
    toolCalls: z.array(recordedToolCallSchema),
    sources: z.array(sourceSchema),
    evidence: z.array(evidenceSchema),
    trajectory: z.array(trajectoryActionSchema),
    drafts: z.array(recordedDraftSchema),
    /** The short answer (`answer-ready`), when the strategy gives one. */
    answer: z.string().nullable(),
    /** The final report's Markdown, when one was written. */
    report: z.string().nullable(),
    status: z.enum(["completed", "failed", "cancelled"]),
    stopReason: z.string(),
  })
  .superRefine((run, ctx) => {
    const ids = new Set<string>();
    run.calls.forEach((call, i) => {
      if (call.runId !== run.runId)
        ctx.addIssue({ code: "custom", path: ["calls", i, "runId"], message: "a call of another run" });
      if (ids.has(call.callId))
        ctx.addIssue({ code: "custom", path: ["calls", i, "callId"], message: `call ${call.callId} twice` });
      ids.add(call.callId);
    });
  });
/** A recorded run. */
export type RecordedRun = z.infer<typeof recordedRunSchema>;
