/**
 * WARP's pipeline reward (AgentCPM-Report Appendix A.6.2): in end-to-end RL the final report is
 * judged on comprehensiveness, insight, instruction following and readability, and the
 * report's score is "a weighted sum across these aspects" with the weights of the query's
 * preference checklist (built as DeepResearch Bench builds its criteria).
 *
 *     R_pipeline = Σ_d W_d s_d / Σ_d W_d
 *
 * The judge is injected and returns s_d per dimension (its own scale, e.g. [0, 1]); W_d comes
 * from the row's RACE criteria (`dimension_weight`), or is equal across the four dimensions
 * when the row has none (our choice).
 */

import { DossierError } from "../../core/errors.ts";
import { RACE_DIMENSIONS, type RaceDimension } from "../../eval/race/records.ts";
import { type QuestionRow, rowRaceCriteria } from "../question-row.ts";

/** Per-dimension scores or weights. */
export type DimensionValues = Record<RaceDimension, number>;

/** Scores a final report on the four dimensions. */
export type PipelineJudge = (input: {
  question: string;
  report: string;
  row: QuestionRow;
}) => Promise<DimensionValues>;

/** The dimension weights W_d of a row (see the module comment). */
export function pipelineWeights(row: Pick<QuestionRow, "rubric">): DimensionValues {
  const given = rowRaceCriteria(row)?.dimension_weight ?? {};
  const weights = Object.fromEntries(RACE_DIMENSIONS.map((d) => [d, given[d] ?? 0])) as DimensionValues;
  const total = RACE_DIMENSIONS.reduce((sum, d) => sum + weights[d], 0);
  if (total > 0) return weights;
  return Object.fromEntries(RACE_DIMENSIONS.map((d) => [d, 1 / RACE_DIMENSIONS.length])) as DimensionValues;
}

/** Σ W_d s_d / Σ W_d. */
export function pipelineScore(scores: DimensionValues, weights: DimensionValues): number {
  let weighted = 0;
  let total = 0;
  for (const d of RACE_DIMENSIONS) {
    const s = scores[d];
    if (typeof s !== "number" || !Number.isFinite(s))
      throw new DossierError("INPUT_INVALID", `the pipeline judge gave no score for ${d}`);
    weighted += weights[d] * s;
    total += weights[d];
  }
  return weighted / total;
}
