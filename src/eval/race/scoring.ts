/**
 * RACE scoring of one task from the judge's output, following DeepResearch Bench
 * (`utils/score_calculator.py` `calculate_weighted_scores` and `deepresearch_bench_race.py`
 * `calculate_normalized_scores`) line by line:
 *
 * - per dimension d present in the judge output, in the criteria's `dimension_weight` and with
 *   criteria: S_d(article) = Σ w·s / Σ w over the judged criteria, where w comes from
 *   {@link matchCriterionWeight} and the denominator Σ w is the same for both articles (a
 *   criterion without an `article_2_score` still adds its weight);
 * - T(article) = Σ_d W_d · S_d;
 * - task overall = T_tgt / (T_tgt + T_ref), task dimension = S_tgt / (S_tgt + S_ref); 0 when
 *   the sum is 0 or the dimension is missing.
 *
 * Items are skipped as in Python: not an object; a score `float()` rejects; no criterion
 * text; no `article_1_score`. A judged item with `target_score` and no `article_1_score` uses
 * it as article 1's score. As in the Python (whose loop variable outlives the loop), the
 * reference average of a dimension is 0 when the last item whose scores both parsed had no
 * `article_2_score`.
 */

import { DossierError } from "../../core/errors.ts";
import { pyFloat } from "./py-numbers.ts";
import { RACE_DIMENSIONS, type RaceCriteria, type RaceDimension } from "./records.ts";
import { criterionWeightMap, matchCriterionWeight, type WeightMatch } from "./weights.ts";

/** One scored criterion, for the audit trail. */
export interface ScoredCriterion {
  dimension: string;
  criterion: string;
  weight: number;
  match: WeightMatch;
  target: number;
  reference: number | null;
}

/** Weighted scores of both articles. */
export interface WeightedScores {
  /** S_d per dimension scored, by dimension name. */
  target: { dims: Record<string, number>; total: number };
  reference: { dims: Record<string, number>; total: number };
  /** Every criterion that counted. */
  criteria: ScoredCriterion[];
  /** `dimension:criterion` texts that fell back to the mean weight. */
  unmatched: string[];
}

/** A task's RACE scores: fractions target / (target + reference). */
export interface RaceTaskScores {
  comprehensiveness: number;
  insight: number;
  instruction_following: number;
  readability: number;
  overall_score: number;
}

/** Computes both articles' weighted scores from a judge output (mirrors `calculate_weighted_scores`). */
export function calculateWeightedScores(
  judgment: Record<string, unknown>,
  criteria: RaceCriteria,
): WeightedScores {
  if (!criteria.criterions || Object.keys(criteria.criterions).length === 0) {
    throw new DossierError(
      "INPUT_INVALID",
      `task ${criteria.id ?? "?"}: criteria have no criterions, cannot calculate weighted scores`,
    );
  }
  const out: WeightedScores = {
    target: { dims: {}, total: 0 },
    reference: { dims: {}, total: 0 },
    criteria: [],
    unmatched: [],
  };
  const unmatched = new Set<string>();
  // Python's `article_2_score` leaks out of the item loop; its last value decides below.
  let lastArticle2: number | null | undefined;

  for (const [dim, scoresList] of Object.entries(judgment)) {
    if (!Array.isArray(scoresList)) continue;
    if (!Object.hasOwn(criteria.dimension_weight, dim)) continue;
    if (!Object.hasOwn(criteria.criterions, dim)) continue;
    const weights = criterionWeightMap(criteria.criterions[dim]!);
    if (weights.size === 0) continue;

    let targetSum = 0;
    let referenceSum = 0;
    let totalWeight = 0;
    for (const item of scoresList) {
      if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
      const record = item as Record<string, unknown>;
      const rawText = record.criterion;
      const text = typeof rawText === "string" ? rawText.trim() : null;
      let raw1 = record.article_1_score ?? null;
      const raw2 = record.article_2_score ?? null;
      const rawTarget = record.target_score ?? null;
      if (rawTarget !== null && raw1 === null) raw1 = rawTarget;
      const s1 = pyFloat(raw1);
      if (s1 === undefined) continue;
      const s2 = pyFloat(raw2);
      if (s2 === undefined) continue;
      lastArticle2 = s2;
      if (!text || s1 === null) continue;

      const { weight, match } = matchCriterionWeight(text, weights);
      if (match === "mean") unmatched.add(`${dim}:${text}`);
      targetSum += s1 * weight;
      totalWeight += weight;
      if (s2 !== null) referenceSum += s2 * weight;
      out.criteria.push({ dimension: dim, criterion: text, weight, match, target: s1, reference: s2 });
    }

    let targetAvg = 0;
    let referenceAvg = 0;
    if (totalWeight > 0) {
      targetAvg = targetSum / totalWeight;
      referenceAvg = lastArticle2 !== null && lastArticle2 !== undefined ? referenceSum / totalWeight : 0;
    }
    out.target.dims[dim] = targetAvg;
    out.reference.dims[dim] = referenceAvg;
    const dimWeight = criteria.dimension_weight[dim]!;
    out.target.total += targetAvg * dimWeight;
    out.reference.total += referenceAvg * dimWeight;
  }
  out.unmatched = [...unmatched];
  return out;
}

/** Target share of each dimension and of the total (mirrors `calculate_normalized_scores`). */
export function normalizeScores(scores: WeightedScores): RaceTaskScores {
  const share = (t: number, r: number) => (t + r > 0 ? t / (t + r) : 0);
  const dims = {} as Record<RaceDimension, number>;
  for (const dim of RACE_DIMENSIONS) {
    const t = scores.target.dims[dim];
    const r = scores.reference.dims[dim];
    dims[dim] = t === undefined || r === undefined ? 0 : share(t, r);
  }
  return { ...dims, overall_score: share(scores.target.total, scores.reference.total) };
}

/** Scores one task: weighted scores, then target shares. */
export function scoreJudgment(
  judgment: Record<string, unknown>,
  criteria: RaceCriteria,
): { scores: RaceTaskScores; detail: WeightedScores } {
  // Like the benchmark, a judgment must rate all four dimensions; one that does not is dropped
  // (the task counts as failed) rather than scored with a dimension missing.
  const missing = RACE_DIMENSIONS.filter((dim) => !Array.isArray(judgment[dim]));
  if (missing.length > 0) {
    throw new DossierError("INPUT_INVALID", `the judgment lacks the dimension(s) ${missing.join(", ")}`, {
      details: { missing },
    });
  }
  const detail = calculateWeightedScores(judgment, criteria);
  return { scores: normalizeScores(detail), detail };
}
