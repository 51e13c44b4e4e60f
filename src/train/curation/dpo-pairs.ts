/**
 * DPO preference pairs (MindDR §5.4, Eq. 14): from several scored outputs of the same input, a
 * high-scoring one (chosen, y⁺ ∈ 𝒟⁺) against a low-scoring one (rejected, y⁻ ∈ 𝒟⁻).
 *
 * Per input the outputs are ranked by reward; the k-th best is paired with the k-th worst, for
 * k = 1 … `maxPairsPerInput` (default 1) while they are distinct outputs, and a pair is kept
 * only when its reward gap is positive and at least `margin` (default 0). The paper partitions
 * by a quality score without giving a threshold; the pairing rule and the margin are ours.
 */

import { DossierError } from "../../core/errors.ts";
import { byInput, byRewardDescending, type ScoredOutput } from "./scored-output.ts";

/** One preference pair. */
export interface DpoPair<T> {
  input: string;
  chosen: T;
  rejected: T;
  chosenReward: number;
  rejectedReward: number;
}

/** Preference pairs from scored outputs (see the module comment). */
export function dpoPairs<T>(
  outputs: readonly ScoredOutput<T>[],
  options: { margin?: number; maxPairsPerInput?: number } = {},
): DpoPair<T>[] {
  const margin = options.margin ?? 0;
  const maxPairs = options.maxPairsPerInput ?? 1;
  if (!(margin >= 0)) throw new DossierError("INPUT_INVALID", "the margin must be ≥ 0");
  if (!Number.isInteger(maxPairs) || maxPairs < 1)
    throw new DossierError("INPUT_INVALID", "at least one pair per input");
  const pairs: DpoPair<T>[] = [];
  for (const [input, group] of byInput(outputs)) {
    const ranked = byRewardDescending(group);
    for (let k = 0; k < maxPairs && k < ranked.length - 1 - k; k++) {
      const hi = ranked[k]!;
      const lo = ranked[ranked.length - 1 - k]!;
      const gap = hi.reward - lo.reward;
      if (gap > 0 && gap >= margin)
        pairs.push({
          input,
          chosen: hi.output,
          rejected: lo.output,
          chosenReward: hi.reward,
          rejectedReward: lo.reward,
        });
    }
  }
  return pairs;
}
