/**
 * Matching a criterion named by the judge to its weight, as DeepResearch Bench's
 * `utils/score_calculator.py` does: exact text, then case-insensitive equality, then a
 * substring either way (first criterion in file order wins), else the mean weight of the
 * dimension's criteria.
 */

import type { RaceCriterion } from "./records.ts";

/** How a criterion's weight was found. */
export type WeightMatch = "exact" | "case-insensitive" | "substring" | "mean";

/**
 * A dimension's criteria keyed by text. Like the Python dict it mirrors, a repeated
 * criterion keeps its first position and its last weight.
 */
export function criterionWeightMap(criteria: readonly RaceCriterion[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const c of criteria) map.set(c.criterion, c.weight);
  return map;
}

/** Mean weight of a dimension's criteria (sum in file order / count of distinct texts). */
export function meanWeight(weights: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const w of weights.values()) sum += w;
  return sum / weights.size;
}

/**
 * The weight of `criterionText` (already trimmed) among `weights` (non-empty), and how it
 * was matched.
 */
export function matchCriterionWeight(
  criterionText: string,
  weights: ReadonlyMap<string, number>,
): { weight: number; match: WeightMatch } {
  const exact = weights.get(criterionText);
  if (exact !== undefined) return { weight: exact, match: "exact" };
  const lower = criterionText.toLowerCase();
  for (const [key, weight] of weights) {
    if (key.toLowerCase() === lower) return { weight, match: "case-insensitive" };
  }
  for (const [key, weight] of weights) {
    const keyLower = key.toLowerCase();
    if (keyLower.includes(lower) || lower.includes(keyLower)) return { weight, match: "substring" };
  }
  return { weight: meanWeight(weights), match: "mean" };
}
