/**
 * The rubric score of a report.
 *
 * Each item k has a weight w_k (5 for key, 3–4 important, 1–2 optional, −1 or −2 for error
 * items) and a judge rating r_k on 1–10 of how well the report matches the item's description —
 * for an error item, how much the report commits the error. The rating is normalised linearly
 * to v_k = (r_k − 1) / 9 ∈ [0, 1], and, by default (the rubrics paper's Eq. 2),
 *
 *     Score = Σ_k w_k · v_k / Σ_k w_k                    (denominator "sum")
 *
 * over the items the judge rated. With P the sum of positive weights and E the sum of
 * error-weight magnitudes (rated items), Σ w = P − E: a report that meets every positive item
 * and commits no error scores P / (P − E) ≥ 1, one that meets nothing and commits every error
 * scores −E / (P − E). The named alternative
 *
 *     Score = Σ_k w_k · v_k / Σ_k |w_k|                  (denominator "abs-sum")
 *
 * keeps the score within [−E/T, P/T] ⊂ [−1, 1] with T = P + E. An item whose judge call failed
 * is left out of both sums (never counted as a rating of 1) and reported in `failed`; the score
 * is null when no item was rated or the denominator is not positive.
 */

import { DossierError } from "../../core/errors.ts";
import type { RubricItem } from "./rubric-types.ts";

/** Lowest judge rating. */
export const RATING_MIN = 1;
/** Highest judge rating. */
export const RATING_MAX = 10;

/** A 1–10 rating normalised to [0, 1]: (r − 1) / 9. */
export function normalizeRating(rating: number): number {
  return (rating - RATING_MIN) / (RATING_MAX - RATING_MIN);
}

/** Which sum of weights divides: Σw (the paper's Eq. 2, default) or Σ|w|. */
export type RubricDenominator = "sum" | "abs-sum";

/** The score of one report and what it was computed from. */
export interface RubricScore {
  /** Σ w·v / Σw (or / Σ|w|) over rated items; null when none was rated. */
  score: number | null;
  /** The denominator used. */
  denominator: RubricDenominator;
  /** The lowest score possible with the rated items (every error fully committed, nothing met). */
  min: number | null;
  /** The highest score possible with the rated items (everything met, no error). */
  max: number | null;
  /** Items rated. */
  rated: number;
  /** Items whose judge call failed. */
  failed: number;
  /** True when every item was rated. */
  complete: boolean;
}

/**
 * Applies the rubric formula (see the module comment). `ratings[k]` is item k's 1–10 rating, or
 * null when its judge call failed.
 */
export function rubricScore(
  items: readonly Pick<RubricItem, "weight">[],
  ratings: readonly (number | null)[],
  options: { denominator?: RubricDenominator } = {},
): RubricScore {
  const denominator = options.denominator ?? "sum";
  if (ratings.length !== items.length)
    throw new DossierError("INTERNAL", `${items.length} items but ${ratings.length} ratings`);
  let weighted = 0;
  let total = 0;
  let positive = 0;
  let negative = 0;
  let rated = 0;
  items.forEach((item, k) => {
    const rating = ratings[k];
    if (rating === null || rating === undefined) return;
    if (!(rating >= RATING_MIN && rating <= RATING_MAX))
      throw new DossierError("INPUT_INVALID", `rating ${rating} outside 1..10`);
    rated++;
    weighted += item.weight * normalizeRating(rating);
    total += denominator === "sum" ? item.weight : Math.abs(item.weight);
    if (item.weight > 0) positive += item.weight;
    else negative += -item.weight;
  });
  const failed = items.length - rated;
  if (rated === 0 || total <= 0)
    return { score: null, denominator, min: null, max: null, rated, failed, complete: failed === 0 };
  return {
    score: weighted / total,
    denominator,
    min: -negative / total,
    max: positive / total,
    rated,
    failed,
    complete: failed === 0,
  };
}
