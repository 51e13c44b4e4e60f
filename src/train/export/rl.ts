/**
 * The `rl` export: scored rollouts with their group advantage, one sample per line, for an
 * offline policy-gradient or reward-weighted trainer.
 *
 * Each line holds the chat the model saw (`messages`, with `tools` when tools were offered),
 * what it answered (`completion`), the run's scalar `reward` and its `reward_components` (the
 * reward function's `components`), its rollout group (`group_id`: the run's group, else its
 * question's id; `group_index`), and its `advantage` within the group: GRPO (default, with
 * grpo.ts's conventions) or RLOO over the rewards of the group's runs.
 *
 * - unit `call` (default): one line per successful model call of the run, each carrying the
 *   run's reward and advantage (an outcome reward shared by every step of the trajectory).
 *   A call whose reply was refused (`format_errors` not empty: a parse failure, a schema or
 *   protocol rule broken; the strategy re-asked, re-sampled or fell back) stays in so a trainer
 *   sees it, with `loss_mask` 0: its completion is not the policy's accepted action and must not
 *   be reinforced with the run's advantage. Every other call has `loss_mask` 1. Failed calls
 *   (no completion) are skipped.
 * - unit `trajectory`: one line per agent conversation, its assistant turns masked one by one
 *   (rl-trajectory.ts): the history once instead of once per call.
 * - unit `run`: one line per run; `messages` is the question as a chat and `completion` the
 *   run's short answer, else its report, else "" (the output its reward judged).
 *
 * Every line names its rollout's `status` (`completed`, `failed`, `cancelled`: a failed
 * rollout is a sample with its reward); a call line also its `model` (the policy), its
 * `sampling` as sent and its `finish_reason` when the provider gave one.
 *
 * A forced-expansion warp run is exported pruned (WARP §2.3.1, curation/warp-pruned-run.ts):
 * units `call` and `trajectory` hold its calls up to its best-scored draft as the model saw them,
 * then the decision that saw that draft relabelled TERMINATE on its unforced request
 * (`relabelled: true`, loss mask 1), with the run's reward and advantage — the reward judged the
 * report, which is that draft; later calls are left out. Unit `run` is the report already.
 * `warpPruning: false` exports the calls as recorded.
 *
 * `dropUniformGroups` applies DAPO's dynamic-sampling filter first: a group whose rewards are
 * all equal carries no gradient and is skipped.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { Role } from "../../llm/model-spec.ts";
import { dynamicSamplingFilter } from "../advantages/dapo-filter.ts";
import { type GrpoOptions, grpoAdvantages } from "../advantages/grpo.ts";
import { rlooAdvantages } from "../advantages/rloo.ts";
import { callFormatOk, samplingSchema } from "../recorded-call.ts";
import type { RecordedRun } from "../recorded-run.ts";
import {
  type ChatMessage,
  chatMessageSchema,
  chatToolSchema,
  checkToolTurns,
  questionPrompt,
  type ToolArgumentsForm,
  ToolArgumentsNotObject,
  toChatMessages,
  toChatTools,
} from "./chat-format.ts";
import { runOutput } from "./dpo.ts";
import type { ExportResult, ExportSkip } from "./export-result.ts";
import { type TrajectoryLine, trajectoryLines } from "./rl-trajectory.ts";
import { trainedRun } from "./trained-run.ts";

/** A reward function's result, as the rewards return it: the scalar and its components. */
export interface RewardLike {
  reward: number;
  components: Record<string, unknown>;
}

/** A run and its reward. */
export interface ScoredRun {
  run: RecordedRun;
  reward: RewardLike;
}

/** One line of an `rl` file. */
export const rlRecordSchema = z
  .strictObject({
    /** `runId` (unit run) or `runId/callId` (unit call). */
    id: z.string().min(1),
    unit: z.enum(["call", "trajectory", "run"]),
    run_id: z.string().min(1),
    question_id: z.string().min(1),
    strategy: z.string().min(1),
    group_id: z.string().min(1),
    group_index: z.number().int().nonnegative().nullable(),
    call_id: z.string().min(1).optional(),
    /** Unit trajectory: the conversation's calls, in order. */
    call_ids: z.array(z.string().min(1)).min(1).optional(),
    /** Unit trajectory: per assistant turn of `messages`, 1 to train on it, 0 not. */
    assistant_loss_mask: z.array(z.union([z.literal(0), z.literal(1)])).optional(),
    role: z.string().min(1).optional(),
    scope: z.string().min(1).optional(),
    step: z.number().int().positive().optional(),
    messages: z.array(chatMessageSchema).min(1),
    tools: z.array(chatToolSchema).min(1).optional(),
    completion: z.string(),
    /** The rollout's end: a failed or cancelled rollout is a sample like any other. */
    status: z.enum(["completed", "failed", "cancelled"]),
    /** Unit call: `provider:model`, the policy that answered. */
    model: z.string().min(1).optional(),
    /** Unit call: the sampling sent (absent fields: the provider's default). */
    sampling: samplingSchema.optional(),
    finish_reason: z.string().optional(),
    /** Unit call: why the reply was refused; empty when it was accepted. */
    format_errors: z.array(z.string()).optional(),
    /** 1: train on the completion; 0: a refused reply, kept for inspection only. */
    loss_mask: z.union([z.literal(0), z.literal(1)]),
    /**
     * The relabelled TERMINATE of a pruned forced-expansion warp run: a call the policy never
     * made (the unforced decision request answered TERMINATE), so it has no sampled log-probs.
     */
    relabelled: z.literal(true).optional(),
    reward: z.number().finite(),
    reward_components: z.record(z.string(), z.unknown()),
    advantage: z.number().finite(),
  })
  .superRefine((record, ctx) => checkToolTurns(record.messages, ctx, ["messages"]));
/** One line of an `rl` file. */
export type RlRecord = z.infer<typeof rlRecordSchema>;

/** Options of {@link rlRecords}. */
export interface RlOptions {
  /** One line per model call (default), per agent conversation or per run. */
  unit?: "call" | "trajectory" | "run";
  /** Group advantage: GRPO (default) or RLOO. */
  advantage?: "grpo" | "rloo";
  /** GRPO's options (ε, sample or population std, scaling). */
  grpo?: GrpoOptions;
  /** Skip the groups whose rewards are all equal (DAPO's filter; default false). */
  dropUniformGroups?: boolean;
  /** The tolerance of "equal" for `dropUniformGroups` (default 0). */
  epsilon?: number;
  /** Unit call: only calls that served these roles. */
  roles?: readonly Role[];
  /** Unit call: only calls of the scopes it accepts. */
  scope?: (scope: string) => boolean;
  /** Tool-call arguments as JSON text (default) or parsed objects. */
  toolArguments?: ToolArgumentsForm;
  /** Unit run: a system turn before the question. */
  systemPrompt?: string;
  /**
   * Forced-expansion warp runs pruned at their best draft (default true): their calls end at the
   * relabelled TERMINATE, later calls left out (curation/warp-pruned-run.ts).
   */
  warpPruning?: boolean;
}

/** The rollout group of a run: its group id, else its question's id. */
export function runGroupId(run: RecordedRun): string {
  return run.group?.id ?? run.row.id;
}

/** Each run's advantage within its group, by run id; `dropped` lists the groups left out. */
export function runAdvantages(
  scored: readonly ScoredRun[],
  options: Pick<RlOptions, "advantage" | "grpo" | "dropUniformGroups" | "epsilon"> = {},
): { advantages: Map<string, number>; dropped: string[] } {
  const groups = new Map<string, ScoredRun[]>();
  const seen = new Set<string>();
  for (const s of scored) {
    if (seen.has(s.run.runId)) throw new DossierError("INPUT_INVALID", `run ${s.run.runId} is given twice`);
    seen.add(s.run.runId);
    const id = runGroupId(s.run);
    groups.set(id, [...(groups.get(id) ?? []), s]);
  }
  let list = [...groups].map(([id, members]) => ({
    id,
    members,
    rewards: members.map((m) => m.reward.reward),
  }));
  const dropped: string[] = [];
  if (options.dropUniformGroups) {
    const filtered = dynamicSamplingFilter(list, { epsilon: options.epsilon });
    list = filtered.kept;
    dropped.push(...filtered.dropped.map((g) => g.id));
  }
  const advantages = new Map<string, number>();
  for (const group of list) {
    const values =
      options.advantage === "rloo"
        ? rlooAdvantages(group.rewards)
        : grpoAdvantages(group.rewards, options.grpo);
    group.members.forEach((m, i) => {
      advantages.set(m.run.runId, values[i]!);
    });
  }
  return { advantages, dropped };
}

/** The `rl` records of scored runs (see the module comment). */
export function rlRecords(scored: readonly ScoredRun[], options: RlOptions = {}): ExportResult<RlRecord> {
  const { advantages } = runAdvantages(scored, options);
  const records: RlRecord[] = [];
  const skipped: ExportSkip[] = [];
  for (const { run: given, reward } of scored) {
    const advantage = advantages.get(given.runId);
    if (advantage === undefined) {
      skipped.push({
        runId: given.runId,
        reason: `group ${runGroupId(given)}: all rewards equal (no gradient)`,
      });
      continue;
    }
    const trained =
      options.unit === "run"
        ? { run: given, pruned: null }
        : trainedRun(given, { pruning: options.warpPruning, reprompt: false }, skipped);
    if (!trained) continue;
    const { run } = trained;
    const relabelled = trained.pruned?.terminate.callId;
    const common = {
      run_id: run.runId,
      question_id: run.row.id,
      strategy: run.strategy,
      group_id: runGroupId(run),
      group_index: run.group?.index ?? null,
      status: run.status,
    };
    const scores = { reward: reward.reward, reward_components: { ...reward.components }, advantage };
    if (options.unit === "run") {
      records.push(
        rlRecordSchema.parse({
          id: run.runId,
          unit: "run",
          ...common,
          messages: questionPrompt(run.row.prompt, options.systemPrompt),
          completion: runOutput(run) ?? "",
          loss_mask: 1,
          ...scores,
        }),
      );
      continue;
    }
    const selected = run.calls.filter(
      (call) =>
        (!options.roles || options.roles.includes(call.role)) &&
        (!options.scope || options.scope(call.scope ?? "")),
    );
    if (options.unit === "trajectory") {
      for (const line of trajectoryLines(selected)) {
        const made = trajectoryRecord(
          run.runId,
          line,
          { ...common, ...scores, ...(line.last.callId === relabelled ? { relabelled: true } : {}) },
          options,
        );
        if ("reason" in made) skipped.push(made);
        else records.push(made);
      }
      continue;
    }
    for (const call of selected) {
      const skip = (reason: string) => skipped.push({ runId: run.runId, callId: call.callId, reason });
      if (call.error) {
        skip(`the call failed (${call.error.code})`);
        continue;
      }
      let messages: ChatMessage[];
      try {
        messages = toChatMessages(call.messages, options.toolArguments);
      } catch (error) {
        if (!(error instanceof ToolArgumentsNotObject)) throw error;
        skip(error.message);
        continue;
      }
      const parsed = rlRecordSchema.safeParse({
        id: `${run.runId}/${call.callId}`,
        unit: "call",
        ...common,
        call_id: call.callId,
        role: call.role,
        ...(call.scope === undefined ? {} : { scope: call.scope }),
        step: call.step,
        messages,
        ...(call.tools && call.tools.length > 0 ? { tools: toChatTools(call.tools) } : {}),
        completion: call.completion,
        model: call.model,
        sampling: call.sampling,
        ...(call.finishReason ? { finish_reason: call.finishReason } : {}),
        format_errors: [...call.formatErrors],
        loss_mask: callFormatOk(call) ? 1 : 0,
        ...(call.callId === relabelled ? { relabelled: true } : {}),
        ...scores,
      });
      if (parsed.success) records.push(parsed.data);
      else skip(z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; "));
    }
  }
  return { records, skipped };
}

/** The record of one conversation (unit trajectory), or why it is skipped. */
function trajectoryRecord(
  runId: string,
  line: TrajectoryLine,
  common: Omit<RlRecord, "id" | "unit" | "messages" | "completion" | "loss_mask">,
  options: RlOptions,
): RlRecord | ExportSkip {
  const { last } = line;
  let messages: ChatMessage[];
  try {
    messages = toChatMessages(last.messages, options.toolArguments);
  } catch (error) {
    if (!(error instanceof ToolArgumentsNotObject)) throw error;
    return { runId, callId: last.callId, reason: error.message };
  }
  const parsed = rlRecordSchema.safeParse({
    id: `${runId}/${line.calls[0]!.callId}`,
    unit: "trajectory",
    ...common,
    call_id: last.callId,
    call_ids: line.calls.map((c) => c.callId),
    role: last.role,
    ...(last.scope === undefined ? {} : { scope: last.scope }),
    step: last.step,
    messages,
    ...(last.tools && last.tools.length > 0 ? { tools: toChatTools(last.tools) } : {}),
    completion: last.completion,
    model: last.model,
    sampling: last.sampling,
    ...(last.finishReason ? { finish_reason: last.finishReason } : {}),
    format_errors: line.members.flatMap((c) => c.formatErrors),
    assistant_loss_mask: line.assistantMask,
    loss_mask: line.lossMask,
  });
  return parsed.success
    ? parsed.data
    : { runId, callId: last.callId, reason: z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; ") };
}
