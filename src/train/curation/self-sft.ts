/**
 * Self-SFT selection (MindDR §5.4, Eq. 15): fine-tune on the model's own high-quality samples
 * 𝒟⁺. Per input, the top-k outputs by reward (default k = 1; equal rewards keep their order),
 * optionally only those reaching `minReward`.
 */

import { DossierError } from "../../core/errors.ts";
import { byInput, byRewardDescending, type ScoredOutput } from "./scored-output.ts";

/** The outputs selected for Self-SFT, input by input. */
export function selfSftSelection<T>(
  outputs: readonly ScoredOutput<T>[],
  options: { k?: number; minReward?: number } = {},
): ScoredOutput<T>[] {
  const k = options.k ?? 1;
  if (!Number.isInteger(k) || k < 1) throw new DossierError("INPUT_INVALID", "k must be a whole number ≥ 1");
  const min = options.minReward ?? Number.NEGATIVE_INFINITY;
  return [...byInput(outputs).values()].flatMap((group) =>
    byRewardDescending(group)
      .filter((o) => o.reward >= min)
      .slice(0, k),
  );
}
