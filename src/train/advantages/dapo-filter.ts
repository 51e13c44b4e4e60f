/**
 * DAPO's dynamic-sampling filter (Yu et al. 2025; MindDR §5.3): a group whose rollouts all got
 * the same reward (all correct, all wrong) has zero advantage everywhere and gives no gradient,
 * so it is dropped and the trainer samples more. Rewards are compared exactly unless an
 * `epsilon` is given (then a group is dropped when max − min ≤ epsilon). A group of one is
 * dropped (nothing to compare it with).
 */

import { DossierError } from "../../core/errors.ts";

/** A group of rollouts of one input. */
export interface RewardGroup {
  id: string;
  rewards: readonly number[];
}

/** True when every reward of the group is the same (within `epsilon`). */
export function allEqual(rewards: readonly number[], epsilon = 0): boolean {
  if (rewards.length === 0) throw new DossierError("INPUT_INVALID", "a group needs at least one reward");
  return Math.max(...rewards) - Math.min(...rewards) <= epsilon;
}

/** Splits groups into those kept (rewards differ) and those dropped (all equal), in input order. */
export function dynamicSamplingFilter<G extends RewardGroup>(
  groups: readonly G[],
  options: { epsilon?: number } = {},
): { kept: G[]; dropped: G[] } {
  const kept: G[] = [];
  const dropped: G[] = [];
  for (const group of groups) (allEqual(group.rewards, options.epsilon ?? 0) ? dropped : kept).push(group);
  return { kept, dropped };
}
