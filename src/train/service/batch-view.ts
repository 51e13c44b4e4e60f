/**
 * How the service shows a batch: its status (`GET /v1/rollouts/{id}`, the 202 of a new one)
 * and its results (`GET /v1/rollouts/{id}/results`): per rollout its run, how it ended, the
 * policy version it was asked for and whether that version is now off-policy, its reward with
 * the reward's components and other output, and its advantage in its group; per group its
 * rewards and whether DAPO dropped it.
 */

// zod as extended by @hono/zod-openapi: these schemas are named in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { tokenRecordSchema } from "../tokens/token-record.ts";
import { type BatchState, type RolloutState, rolloutStatusSchema, statusCounts } from "./batch-state.ts";
import type { PolicyVersion } from "./policy-versions.ts";
import { policyVersionSchema } from "./policy-versions.ts";
import type { RolloutTokens } from "./rollout-tokens.ts";

const errorShape = z.object({ code: z.string(), message: z.string() }).nullable();

/** A batch's status. */
export const batchViewSchema = z.object({
  id: z.string(),
  status: z.enum(["running", "completed", "cancelled"]),
  strategy: z.string(),
  group: z.number().int(),
  rows: z.number().int(),
  /** Rollouts in all (rows × group). */
  total: z.number().int(),
  policyVersion: policyVersionSchema,
  /** The latest version requested of the service, now. */
  latestPolicyVersion: policyVersionSchema,
  /** True when the batch's version is older than the latest requested. */
  offPolicy: z.boolean(),
  rejectStale: z.boolean(),
  tokens: z.boolean(),
  reward: z.object({ name: z.string(), advantage: z.enum(["grpo", "rloo"]), dapo: z.boolean() }),
  counts: z.record(rolloutStatusSchema, z.number().int()),
  groups: z.object({ total: z.number().int(), scored: z.number().int() }),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  links: z.object({ self: z.string(), events: z.string(), results: z.string() }),
});
/** A batch's status. */
export type BatchView = z.infer<typeof batchViewSchema>;

/** One rollout in the results. */
export const rolloutResultSchema = z.object({
  key: z.string().describe("`<row id>#<index in the group>`"),
  questionId: z.string(),
  groupId: z.string(),
  groupIndex: z.number().int(),
  runId: z.string().nullable(),
  status: rolloutStatusSchema,
  stopReason: z.string().nullable(),
  error: errorShape,
  policyVersion: policyVersionSchema,
  /** True when the rollout's policy version is older than the latest requested. */
  offPolicy: z.boolean(),
  /** Null until its group is scored, and for a rollout that is no sample. */
  reward: z.number().nullable(),
  rewardComponents: z.record(z.string(), z.unknown()).nullable(),
  rewardDetails: z.record(z.string(), z.unknown()).nullable(),
  /** The advantage in its group; null when the group was dropped, not scored, or it is no sample. */
  advantage: z.number().nullable(),
  dropped: z.boolean(),
  /** The run's short answer, when the strategy gives one. */
  answer: z.string().nullable(),
  /** Model calls recorded. */
  calls: z.number().int(),
  /**
   * With `tokens: true`: the rollout's token sequences, the `tokens` export's records (prompt_ids,
   * response_ids, response_mask, loss_mask, response_logprobs, turns, policy_version, reward,
   * reward_components, advantage …); null without.
   */
  tokens: z.array(tokenRecordSchema).nullable(),
  /** With `tokens: true`: the calls left out of `tokens` and why (the server gave no ids …). */
  tokenSkips: z.array(z.object({ callId: z.string().optional(), reason: z.string() })).nullable(),
});
/** One rollout in the results. */
export type RolloutResult = z.infer<typeof rolloutResultSchema>;

/** One group in the results. */
export const groupResultSchema = z.object({
  groupId: z.string(),
  status: z.enum(["open", "scored", "unscored"]),
  /** The samples' rewards, in group order. */
  rewards: z.array(z.number()),
  meanReward: z.number().nullable(),
  dropped: z.boolean(),
  error: errorShape,
});

/** `GET /v1/rollouts/{id}/results`. */
export const batchResultsSchema = z.object({
  batch: batchViewSchema,
  groups: z.array(groupResultSchema),
  rollouts: z.array(rolloutResultSchema),
});
/** `GET /v1/rollouts/{id}/results`. */
export type BatchResults = z.infer<typeof batchResultsSchema>;

/** What a view needs from the service: the versions' order. */
export interface VersionOrder {
  latest(): PolicyVersion | null;
  isStale(version: PolicyVersion): boolean;
}

/** The status of `batch`. */
export function batchView(batch: BatchState, versions: VersionOrder): BatchView {
  const self = `/v1/rollouts/${batch.id}`;
  const groups = [...batch.groups.values()];
  return {
    id: batch.id,
    status: batch.status,
    strategy: batch.request.strategy,
    group: batch.request.group,
    rows: batch.request.rows.length,
    total: batch.rollouts.length,
    policyVersion: batch.policyVersion,
    latestPolicyVersion: versions.latest() ?? batch.policyVersion,
    offPolicy: versions.isStale(batch.policyVersion),
    rejectStale: batch.rejectStale,
    tokens: batch.request.tokens,
    reward: {
      name: batch.request.reward.name,
      advantage: batch.request.reward.advantage,
      dapo: batch.request.reward.dapo,
    },
    counts: statusCounts(batch),
    groups: { total: groups.length, scored: groups.filter((g) => g.status === "scored").length },
    createdAt: batch.createdAt,
    endedAt: batch.endedAt,
    links: { self, events: `${self}/events`, results: `${self}/results` },
  };
}

/**
 * The results of `batch` so far; `tokensOf` gives a rollout's token records (a batch asked with
 * `tokens: true`).
 */
export async function batchResults(
  batch: BatchState,
  versions: VersionOrder,
  tokensOf?: (rollout: RolloutState) => Promise<RolloutTokens>,
): Promise<BatchResults> {
  const offPolicy = versions.isStale(batch.policyVersion);
  const byKey = new Map(batch.rollouts.map((r) => [r.key, r]));
  const groups = [...batch.groups.values()].map((g) => {
    const rewards = g.keys.map((k) => byKey.get(k)!.reward).filter((r): r is number => r !== null);
    return {
      groupId: g.id,
      status: g.status,
      rewards,
      meanReward: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null,
      dropped: g.dropped,
      error: g.error,
    };
  });
  return {
    batch: batchView(batch, versions),
    groups,
    rollouts: await Promise.all(
      batch.rollouts.map(async (r) => {
        const tokens = batch.request.tokens && tokensOf ? await tokensOf(r) : null;
        return {
          key: r.key,
          questionId: r.row.id,
          groupId: r.row.id,
          groupIndex: r.index,
          runId: r.runId,
          status: r.status,
          stopReason: r.stopReason,
          error: r.error,
          policyVersion: batch.policyVersion,
          offPolicy,
          reward: r.reward,
          rewardComponents: r.components,
          rewardDetails: r.details,
          advantage: r.advantage,
          dropped: batch.groups.get(r.row.id)?.dropped ?? false,
          answer: r.answer,
          calls: r.calls,
          tokens: tokens?.records ?? null,
          tokenSkips:
            tokens?.skipped.map((s) => ({ ...(s.callId ? { callId: s.callId } : {}), reason: s.reason })) ??
            null,
        };
      }),
    ),
  };
}
