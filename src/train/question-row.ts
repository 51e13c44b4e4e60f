/**
 * A question row: one task of a rollout set, with whatever ground truth the rewards need —
 * the reference answer (deep-search ORM, smtl), the key intermediate entities (MindDR PRM,
 * Eq. 8), a reference report (MindDR R_cite, Eq. 10) and a rubric (a query-specific rubric for
 * the `rubric` reward, or DeepResearch Bench RACE criteria for `minddr-report` / `warp`).
 * Extra fields (a difficulty label, a source benchmark) are kept.
 */

import { z } from "zod";
import { type RaceCriteria, raceCriteriaSchema } from "../eval/race/records.ts";
import { generatedItemSchema, RUBRIC_CATEGORIES } from "../eval/rubric/rubric-types.ts";

/** One item of a row's query-specific rubric: title, description, weight (category optional). */
export const rowRubricItemSchema = generatedItemSchema.extend({
  weight: z.number(),
  category: z.enum(RUBRIC_CATEGORIES).optional(),
});
/** One item of a row's query-specific rubric. */
export type RowRubricItem = z.infer<typeof rowRubricItemSchema>;

/** A row's rubric: a query-specific rubric (a list of items) or RACE criteria. */
export const rowRubricSchema = z.union([z.array(rowRubricItemSchema).min(1), raceCriteriaSchema]);
/** A row's rubric. */
export type RowRubric = z.infer<typeof rowRubricSchema>;

/** One question row `{id, prompt, answer?, entities?, reference?, rubric?}`. */
export const questionRowSchema = z.looseObject({
  /** The task id; a number is read as its decimal string. */
  id: z.union([z.string().min(1), z.number()]).transform(String),
  prompt: z.string().min(1),
  /** The reference answer (short-answer tasks). */
  answer: z.string().min(1).optional(),
  /** Key intermediate entities a good trajectory passes through (MindDR's entity set 𝓔). */
  entities: z.array(z.string().min(1)).optional(),
  /** A reference report in Markdown. */
  reference: z.string().min(1).optional(),
  rubric: rowRubricSchema.optional(),
});
/** One question row. */
export type QuestionRow = z.infer<typeof questionRowSchema>;

/** The row's query-specific rubric items, or null when it has none (or RACE criteria instead). */
export function rowRubricItems(row: Pick<QuestionRow, "rubric">): RowRubricItem[] | null {
  return Array.isArray(row.rubric) ? row.rubric : null;
}

/** The row's RACE criteria, or null when it has none (or a query-specific rubric instead). */
export function rowRaceCriteria(row: Pick<QuestionRow, "rubric">): RaceCriteria | null {
  return row.rubric && !Array.isArray(row.rubric) ? row.rubric : null;
}
