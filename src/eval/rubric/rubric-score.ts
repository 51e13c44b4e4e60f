/**
 * The rubric score of a report.
 *
 * Each item k has a weight w_k (5 for key, 3–4 important, 1–2 optional, −1 or −2 for error
 * items) and a judge rating r_k on 1–10 of how well the report matches the item's description —
 * for an error item, how much the report commits the error. The rating is normalised linearly
 * to v_k = (r_k − 1) / 9 ∈ [0, 1], and
 *
 *     Score = Σ_k w_k · v_k / Σ_k |w_k|
 *
 * over the items the judge rated. A positive item adds up to w_k, an error item subtracts up
 * to |w_k|, so the score lies in [−E/T, P/T] where P is the sum of positive weights, E the sum
 * of error-weight magnitudes and T = P + E (all over rated items); a report that meets every
 * positive item and commits no error scores P/T. An item whose judge call failed is left out of
 * both sums (never counted as a rating of 1) and reported in `failed`; the score is null when no
 * item was rated.
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

/** The score of one report and what it was computed from. */
export interface RubricScore {
  /** Σ w·v / Σ|w| over rated items; null when none was rated. */
  score: number | null;
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
): RubricScore {
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
    total += Math.abs(item.weight);
    if (item.weight > 0) positive += item.weight;
    else negative += -item.weight;
  });
  const failed = items.length - rated;
  if (rated === 0 || total === 0)
    return { score: null, min: null, max: null, rated, failed, complete: failed === 0 };
  return {
    score: weighted / total,
    min: -negative / total,
    max: positive / total,
    rated,
    failed,
    complete: failed === 0,
  };
}
