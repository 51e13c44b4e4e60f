/**
 * `rubric`: a report rollout scored by its query-specific rubric (rubrics paper §3.4, the score
 * of Eq. 2 used as the GRPO reward of MaMs rollouts):
 *
 *     S(r | y) = Σ_k w_k v_k / Σ_k w_k                                                 (Eq. 2)
 *
 * where w_k is item k's weight (negative for error items) and v_k its judge rating on 1–10,
 * normalised to [0, 1] as (r − 1) / 9 — the evaluation toolkit's `rubricScore`. The rater is
 * injected (one call per item). An item whose rating failed (null) is left out of both sums; a
 * report none of whose items could be rated is an error (`PROVIDER_ERROR`), not a score.
 *
 * Our choice for a run without a report: the rubric's lowest possible score (every positive
 * item unmet, every error committed), without calling the rater, so that writing nothing is
 * never better than writing something.
 */

import { DossierError } from "../../core/errors.ts";
import { type RubricScore, rubricScore } from "../../eval/rubric/rubric-score.ts";
import { type RowRubricItem, rowRubricItems } from "../question-row.ts";
import type { RecordedRun } from "../recorded-run.ts";

/** Rates how well a report meets one rubric item, 1–10 (for an error item: how much it commits the error); null on failure. */
export type RubricItemRater = (input: {
  query: string;
  item: RowRubricItem;
  report: string;
}) => Promise<number | null>;

/** Eq. 2 for one report: every item rated (concurrently), then the weighted mean. */
export async function rubricReportScore(
  query: string,
  items: readonly RowRubricItem[],
  report: string,
  rate: RubricItemRater,
): Promise<{ score: RubricScore; ratings: (number | null)[] }> {
  const ratings = await Promise.all(items.map((item) => rate({ query, item, report })));
  return { score: rubricScore(items, ratings, { denominator: "sum" }), ratings };
}

/** The reward of one run. */
export interface RubricReward {
  reward: number;
  components: { score: number; rated: number; failed: number };
  /** Each item's rating (null: failed or not asked). */
  ratings: (number | null)[];
}

/** The `rubric` reward of a run (see the module comment). */
export async function rubricReward(run: RecordedRun, deps: { rate: RubricItemRater }): Promise<RubricReward> {
  const items = rowRubricItems(run.row);
  if (!items)
    throw new DossierError(
      "INPUT_INVALID",
      `row ${run.row.id}: the rubric reward needs a query-specific rubric`,
    );
  const report = run.report ?? run.answer;
  if (report === null || report.trim() === "") {
    const floor = rubricScore(
      items,
      items.map((item) => (item.weight < 0 ? 10 : 1)),
    );
    if (floor.score === null)
      throw new DossierError("INPUT_INVALID", `row ${run.row.id}: the rubric's weights sum to ≤ 0`);
    return {
      reward: floor.score,
      components: { score: floor.score, rated: 0, failed: 0 },
      ratings: items.map(() => null),
    };
  }
  const { score, ratings } = await rubricReportScore(run.row.prompt, items, report, deps.rate);
  if (score.score === null) {
    if (score.rated > 0)
      throw new DossierError("INPUT_INVALID", `row ${run.row.id}: the rubric's weights sum to ≤ 0`);
    throw new DossierError("PROVIDER_ERROR", `row ${run.row.id}: no rubric item could be rated`);
  }
  return {
    reward: score.score,
    components: { score: score.score, rated: score.rated, failed: score.failed },
    ratings,
  };
}
