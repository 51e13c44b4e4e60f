/**
 * The `tokens` export's record: one token sequence of a rollout (segments.ts) with what an
 * on-policy trainer needs beside it — the rollout, the policy and its version, the sampling,
 * the reward with its components and the group advantage, the rollout's status — as verl's
 * agent loop, OpenRLHF's agent mode and TRL's `rollout_func` consume it (docs/training.md).
 * Field names are snake_case, as the trainers' Python reads them.
 *
 * {@link tokenRecords} builds them from recorded runs: each call's ids are the server's
 * (recorded with `recordTokens`), else — given the checkpoint's tokenizer — re-tokenized from
 * its messages (`token_source: "retokenized"`, no log-probs). Failed calls and calls without ids
 * are left out, each named with its reason.
 */

import { z } from "zod";
import type { Role } from "../../llm/model-spec.ts";
import type { ExportResult, ExportSkip } from "../export/export-result.ts";
import { samplingSchema } from "../recorded-call.ts";
import type { RecordedRun } from "../recorded-run.ts";
import type { CallTokens } from "./call-tokens.ts";
import { type CheckpointTokenizer, retokenizeCall } from "./checkpoint-tokenizer.ts";
import { type TokenizedCall, type TokenSegment, tokenSegments } from "./segments.ts";

const ids = z.array(z.number().int().nonnegative());
const mask = z.array(z.union([z.literal(0), z.literal(1)]));

/** One line of the `tokens` export. */
export const tokenRecordSchema = z
  .object({
    /** `runId/<first callId>`. */
    id: z.string().min(1),
    /** `trajectory`: a segment of an appending agent; `call`: one (state, action) call. */
    unit: z.enum(["trajectory", "call"]),
    run_id: z.string().min(1),
    question_id: z.string().min(1),
    group_id: z.string().min(1),
    group_index: z.number().int().nonnegative().nullable(),
    strategy: z.string().min(1),
    /** The agent: its scope and model role. */
    scope: z.string().nullable(),
    role: z.string().min(1),
    /** Set on a call made inside a tool call (engine work, e.g. a page reader's summary). */
    tool_call_id: z.string().nullable(),
    /** Trajectory units: index among the agent's segments, from 0; null for calls. */
    segment: z.number().int().nonnegative().nullable(),
    /** Trajectory units: `first`, or `break` when the previous segment's prefix broke; null for calls. */
    segment_start: z.enum(["first", "break"]).nullable(),
    /** Where the prefix broke: the call the segment's first prompt did not extend, and the token position. */
    segment_break: z
      .object({ after_call_id: z.string(), at_token: z.number().int().nonnegative() })
      .nullable(),
    /** The calls whose completions `response_ids` holds, in order. */
    call_ids: z.array(z.string().min(1)).min(1),
    /** Model turns (completions) in `response_ids`. */
    turns: z.number().int().positive(),
    prompt_ids: ids,
    response_ids: ids,
    /** 1: a token the model sampled; 0: a token between turns (tool observation, template markers). */
    response_mask: mask,
    /** `response_mask` with the turns of refused replies at 0: what a policy-gradient loss should use. */
    loss_mask: mask,
    /** The sampler's log-prob of each model token, 0 at the others; null when the ids were re-tokenized. */
    response_logprobs: z.array(z.number()).nullable(),
    /** Each turn's completion as [start, end) in `response_ids`. */
    completion_spans: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
    /** `server`: ids from the inference server; `retokenized`: from the checkpoint's tokenizer; `mixed`: both. */
    token_source: z.enum(["server", "retokenized", "mixed"]),
    /** Calls whose decoding was constrained to a JSON schema (guided decoding). */
    constrained_call_ids: z.array(z.string()),
    /** Calls whose reply the strategy refused (their turns have `loss_mask` 0). */
    rejected_call_ids: z.array(z.string()),
    /**
     * Calls the policy never sampled: a pruned forced-expansion warp run's relabelled TERMINATE
     * (its ids from the checkpoint's tokenizer, `loss_mask` 1, as the `rl` export's `relabelled`).
     */
    relabelled_call_ids: z.array(z.string()),
    format_errors: z.array(z.string()),
    /** The last turn's finish reason. */
    finish_reason: z.string().nullable(),
    /** The policy that answered: `provider:model`. */
    policy: z.string().min(1),
    /** The policy's version as the trainer named it (`--policy-version`), else null. */
    policy_version: z.string().nullable(),
    /** The sampling of the first turn, as sent. */
    sampling: samplingSchema,
    /** How the rollout ended. */
    status: z.enum(["completed", "failed", "cancelled"]),
    /** The run's scalar reward and its components; null without a rewards file. */
    reward: z.number().finite().nullable(),
    reward_components: z.record(z.string(), z.unknown()).nullable(),
    /** The run's advantage in its group, as `train reward` computed it; null without one. */
    advantage: z.number().finite().nullable(),
  })
  .superRefine((r, ctx) => {
    const n = r.response_ids.length;
    for (const key of ["response_mask", "loss_mask", "response_logprobs"] as const) {
      const v = r[key];
      if (v !== null && v.length !== n)
        ctx.addIssue({ code: "custom", path: [key], message: "one entry per response id" });
    }
    if (r.completion_spans.length !== r.turns || r.call_ids.length !== r.turns)
      ctx.addIssue({ code: "custom", path: ["turns"], message: "one call and one span per turn" });
  });
/** One line of the `tokens` export. */
export type TokenRecord = z.infer<typeof tokenRecordSchema>;

/** A run with its reward, when it has one. */
export interface TokenRun {
  run: RecordedRun;
  reward: { reward: number; components: Record<string, unknown> } | null;
  advantage: number | null;
  /** The id of the run's relabelled TERMINATE, when the run was pruned (export/trained-run.ts). */
  relabelled?: string | null;
}

/** Options of {@link tokenRecords}. */
export interface TokenRecordsOptions {
  /** The checkpoint's tokenizer, to re-tokenize calls without server ids. */
  tokenizer?: CheckpointTokenizer;
  /** `missing` (default): re-tokenize only calls without server ids; `always`: every call. */
  retokenize?: "missing" | "always";
  /** The policy's version, written on every record. */
  policyVersion?: string;
  /** Only calls of these roles. */
  roles?: readonly Role[];
}

/** The ids of a call, or why it has none. */
function tokenize(
  tr: TokenRun,
  call: RecordedRun["calls"][number],
  options: TokenRecordsOptions,
): TokenizedCall | ExportSkip {
  const { run } = tr;
  const skip = (reason: string): ExportSkip => ({ runId: run.runId, callId: call.callId, reason });
  if (call.error) return skip(`the call failed (${call.error.code})`);
  if (call.callId === tr.relabelled && !options.tokenizer)
    return skip(
      "the relabelled TERMINATE of WARP pruning was never sampled, so no server gave its ids: give the checkpoint's tokenizer folder to tokenize it",
    );
  const server = call.tokens?.promptIds && call.tokens.completionIds ? call.tokens : null;
  let tokens: CallTokens;
  let source: TokenizedCall["source"];
  if (server && options.retokenize !== "always") {
    tokens = server;
    source = "server";
  } else if (options.tokenizer) {
    tokens = retokenizeCall(call, options.tokenizer);
    source = "retokenized";
  } else
    return skip(
      call.tokens
        ? "the server returned no token ids: give the checkpoint's tokenizer folder to re-tokenize"
        : "the run recorded no token ids (rollouts --tokens): give the checkpoint's tokenizer folder to re-tokenize",
    );
  return {
    call,
    promptIds: tokens.promptIds!,
    completionIds: tokens.completionIds!,
    logprobs: source === "server" ? tokens.logprobs : null,
    source,
    constrained: tokens.constrained,
  };
}

function record(tr: TokenRun, s: TokenSegment, options: TokenRecordsOptions): TokenRecord {
  const { run } = tr;
  const first = s.calls[0]!.call;
  const last = s.calls.at(-1)!.call;
  const sources = new Set(s.calls.map((c) => c.source));
  return {
    id: `${run.runId}/${first.callId}`,
    unit: s.unit,
    run_id: run.runId,
    question_id: run.row.id,
    group_id: run.group?.id ?? run.row.id,
    group_index: run.group?.index ?? null,
    strategy: run.strategy,
    scope: s.scope,
    role: s.role,
    tool_call_id: first.toolCallId ?? null,
    segment: s.segment,
    segment_start: s.start,
    segment_break: s.break ? { after_call_id: s.break.afterCallId, at_token: s.break.atToken } : null,
    call_ids: s.calls.map((c) => c.call.callId),
    turns: s.calls.length,
    prompt_ids: s.promptIds,
    response_ids: s.responseIds,
    response_mask: s.responseMask as (0 | 1)[],
    loss_mask: s.lossMask as (0 | 1)[],
    response_logprobs: s.responseLogprobs,
    completion_spans: s.completionSpans,
    token_source: sources.size > 1 ? "mixed" : [...sources][0]!,
    constrained_call_ids: s.calls.filter((c) => c.constrained).map((c) => c.call.callId),
    rejected_call_ids: s.calls.filter((c) => c.call.formatErrors.length > 0).map((c) => c.call.callId),
    relabelled_call_ids: s.calls.filter((c) => c.call.callId === tr.relabelled).map((c) => c.call.callId),
    format_errors: s.calls.flatMap((c) => c.call.formatErrors),
    finish_reason: last.finishReason ?? null,
    policy: first.model,
    policy_version: options.policyVersion ?? null,
    sampling: { ...first.sampling },
    status: run.status,
    reward: tr.reward?.reward ?? null,
    reward_components: tr.reward ? { ...tr.reward.components } : null,
    advantage: tr.advantage,
  };
}

/** The `tokens` records of runs (see the module comment). */
export function tokenRecords(
  runs: readonly TokenRun[],
  options: TokenRecordsOptions = {},
): ExportResult<TokenRecord> {
  const records: TokenRecord[] = [];
  const skipped: ExportSkip[] = [];
  for (const tr of runs) {
    const calls: TokenizedCall[] = [];
    for (const call of tr.run.calls) {
      if (options.roles && !options.roles.includes(call.role)) continue;
      const t = tokenize(tr, call, options);
      if ("reason" in t) skipped.push(t);
      else calls.push(t);
    }
    if (!calls.length && !tr.run.calls.length)
      skipped.push({ runId: tr.run.runId, reason: "the run made no model call" });
    for (const segment of tokenSegments(calls)) records.push(record(tr, segment, options));
  }
  return { records, skipped };
}
