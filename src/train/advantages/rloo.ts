/**
 * RLOO's leave-one-out advantage (Ahmadian et al. 2024; SMTL §5.2): each rollout's baseline is
 * the mean reward of the other G − 1 rollouts of the same input,
 *
 *     A_i = r_i − (1 / (G − 1)) Σ_{j≠i} r_j   (= G/(G − 1) · (r_i − mean(r)))
 *
 * an unbiased estimator with no scaling by the standard deviation. A group of one has no
 * baseline: advantage 0; a group of equal rewards gets exactly 0.
 */

import { DossierError } from "../../core/errors.ts";

/** RLOO advantages of one group. */
export function rlooAdvantages(rewards: readonly number[]): number[] {
  if (rewards.length === 0) throw new DossierError("INPUT_INVALID", "a group needs at least one reward");
  if (rewards.some((r) => !Number.isFinite(r)))
    throw new DossierError("INPUT_INVALID", "rewards must be finite numbers");
  const g = rewards.length;
  if (rewards.every((r) => r === rewards[0])) return rewards.map(() => 0); // also a group of one

  const total = rewards.reduce((a, b) => a + b, 0);
  return rewards.map((r) => r - (total - r) / (g - 1));
}
