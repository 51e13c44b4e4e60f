/**
 * Scoring one group of a batch once all its rollouts have ended: each sample's reward (the
 * registered reward's function, its judges behind the service's judge model), then the group's
 * advantages — GRPO or RLOO over the samples, or none when DAPO's filter drops a group whose
 * rewards are all equal (a group of one sample included, as `allEqual` has it). Rollouts that are no sample (an error outside the agent, stale,
 * cancelled) are not in the group's statistics. A judge that fails leaves the group unscored,
 * with the error.
 */

import { DossierError, toDossierError } from "../../core/errors.ts";
import { allEqual } from "../advantages/dapo-filter.ts";
import { type GrpoOptions, grpoAdvantages } from "../advantages/grpo.ts";
import { rlooAdvantages } from "../advantages/rloo.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { searchLambdas } from "../rewards/minddr-lambdas.ts";
import type { RewardName } from "../rewards/registry.ts";
import { type RewardJudges, rewardOfRun } from "../score/score-runs.ts";
import type { RolloutReward } from "./request.ts";

/** One sample's score. */
export interface SampleScore {
  runId: string;
  reward: number;
  components: Record<string, unknown>;
  details: Record<string, unknown>;
  /** Null when the group was dropped. */
  advantage: number | null;
}

/** A group's scores. */
export type GroupScore =
  | { ok: true; samples: SampleScore[]; dropped: boolean }
  | { ok: false; error: { code: string; message: string } };

/** Scores the samples of one group (see the module comment). */
export async function scoreGroup(
  runs: readonly RecordedRun[],
  reward: RolloutReward,
  judges: RewardJudges,
): Promise<GroupScore> {
  if (runs.length === 0) return { ok: true, samples: [], dropped: false };
  const lambdas = reward.lambdas
    ? searchLambdas(reward.lambdas.tool, reward.lambdas.format, reward.lambdas.prm)
    : undefined;
  let scored: Omit<SampleScore, "advantage">[];
  try {
    scored = await Promise.all(
      runs.map(async (run) => {
        const {
          reward: value,
          components,
          ...details
        } = await rewardOfRun(reward.name as RewardName, run, judges, lambdas);
        if (!Number.isFinite(value))
          throw new DossierError(
            "PROVIDER_ERROR",
            `the ${reward.name} reward of run ${run.runId} is not a number`,
          );
        return { runId: run.runId, reward: value, components, details: JSON.parse(JSON.stringify(details)) };
      }),
    );
  } catch (error) {
    const e = toDossierError(error);
    return { ok: false, error: { code: e.code, message: e.message } };
  }
  const rewards = scored.map((s) => s.reward);
  const dropped = reward.dapo && allEqual(rewards);
  const advantages = dropped
    ? rewards.map(() => null)
    : reward.advantage === "rloo"
      ? rlooAdvantages(rewards)
      : grpoAdvantages(rewards, (reward.grpo ?? {}) as GrpoOptions);
  return { ok: true, dropped, samples: scored.map((s, i) => ({ ...s, advantage: advantages[i] ?? null })) };
}
