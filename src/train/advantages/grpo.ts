/**
 * GRPO's group-relative advantage (DeepSeekMath; MindDR §5.2 Eq. 2; rubrics paper §3.3): for G
 * rollouts of one input with rewards r_1..r_G,
 *
 *     A_i = (r_i − mean(r)) / (std(r) + ε)
 *
 * Conventions, stated because trainers differ: `std` is the sample standard deviation
 * (divisor G − 1, what `torch.std` — and so verl and TRL — compute) unless `std: "population"`
 * (divisor G); ε = 1e-6 is added to the standard deviation (verl's default; TRL uses 1e-4), so
 * a group of equal rewards gets advantages 0, not NaN (exactly 0, whatever the rounding of its
 * mean). `scaleByStd: false` gives the
 * mean-centred advantage A_i = r_i − mean(r) that MindDR writes as its Eq. 2 (and Dr. GRPO
 * uses). A group of one has advantage 0.
 */

import { DossierError } from "../../core/errors.ts";

/** Options of {@link grpoAdvantages}. */
export interface GrpoOptions {
  /** Added to the standard deviation. Default 1e-6. */
  epsilon?: number;
  /** Sample (G − 1, default) or population (G) standard deviation. */
  std?: "sample" | "population";
  /** Divide by the standard deviation (default true); false: mean-centred only. */
  scaleByStd?: boolean;
}

/** The mean of a group's rewards. */
export function groupMean(rewards: readonly number[]): number {
  return rewards.reduce((a, b) => a + b, 0) / rewards.length;
}

/** The standard deviation of a group's rewards (sample or population). */
export function groupStd(rewards: readonly number[], kind: "sample" | "population" = "sample"): number {
  const n = rewards.length;
  if (n < 2) return 0;
  const m = groupMean(rewards);
  const squares = rewards.reduce((sum, r) => sum + (r - m) ** 2, 0);
  return Math.sqrt(squares / (kind === "sample" ? n - 1 : n));
}

/** GRPO advantages of one group (see the module comment). */
export function grpoAdvantages(rewards: readonly number[], options: GrpoOptions = {}): number[] {
  if (rewards.length === 0) throw new DossierError("INPUT_INVALID", "a group needs at least one reward");
  if (rewards.some((r) => !Number.isFinite(r)))
    throw new DossierError("INPUT_INVALID", "rewards must be finite numbers");
  // Equal rewards: exactly 0 (the mean of 0.7, 0.7, 0.7 is 0.7000000000000001 in floating point).
  if (rewards.every((r) => r === rewards[0])) return rewards.map(() => 0);
  const m = groupMean(rewards);
  if (options.scaleByStd === false) return rewards.map((r) => r - m);
  const scale = groupStd(rewards, options.std ?? "sample") + (options.epsilon ?? 1e-6);
  return rewards.map((r) => (r - m) / scale);
}
