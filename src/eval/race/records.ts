/**
 * The DeepResearch Bench file formats RACE reads and writes, as zod schemas: criteria
 * (`criteria.jsonl`), queries (`query.jsonl`), articles (target and reference JSONL), per-task
 * results (`raw_results.jsonl`) and stored judge outputs (Dossier's judgments file).
 */

import { z } from "zod";

/** The four RACE dimensions, in the benchmark's order. */
export const RACE_DIMENSIONS = [
  "comprehensiveness",
  "insight",
  "instruction_following",
  "readability",
] as const;
/** A RACE dimension. */
export type RaceDimension = (typeof RACE_DIMENSIONS)[number];

/** A task id: the benchmark uses integers; strings are accepted. */
export const taskIdSchema = z.union([z.number(), z.string()]);
/** A task id. */
export type TaskId = z.infer<typeof taskIdSchema>;

/** One criterion of a dimension. Extra fields (e.g. `comment`) are kept. */
export const raceCriterionSchema = z.looseObject({
  criterion: z.string().describe("the criterion, a short name"),
  explanation: z.string().describe("what the criterion looks for"),
  weight: z.number().describe("the criterion's weight within its dimension"),
});
/** One criterion of a dimension. */
export type RaceCriterion = z.infer<typeof raceCriterionSchema>;

/** One line of `criteria.jsonl`. */
export const raceCriteriaSchema = z.looseObject({
  id: taskIdSchema.optional(),
  prompt: z.string(),
  dimension_weight: z.record(z.string(), z.number()),
  criterions: z.record(z.string(), z.array(raceCriterionSchema)),
});
/** One line of `criteria.jsonl`. */
export type RaceCriteria = z.infer<typeof raceCriteriaSchema>;

/** One line of `query.jsonl`. */
export const raceQuerySchema = z.looseObject({
  id: taskIdSchema,
  prompt: z.string(),
  language: z.string().optional(),
  topic: z.string().optional(),
});
/** One line of `query.jsonl`. */
export type RaceQuery = z.infer<typeof raceQuerySchema>;

/** One line of a target or reference article file. */
export const raceArticleSchema = z.looseObject({
  id: taskIdSchema.optional(),
  prompt: z.string(),
  article: z.string(),
});
/** One line of a target or reference article file. */
export type RaceArticle = z.infer<typeof raceArticleSchema>;

/** One line of `raw_results.jsonl`: fractions target / (target + reference), or an error. */
export const raceResultRowSchema = z.looseObject({
  id: taskIdSchema.optional(),
  prompt: z.string().optional(),
  comprehensiveness: z.number().optional(),
  insight: z.number().optional(),
  instruction_following: z.number().optional(),
  readability: z.number().optional(),
  overall_score: z.number().optional(),
  error: z.string().optional(),
});
/** One line of `raw_results.jsonl`. */
export type RaceResultRow = z.infer<typeof raceResultRowSchema>;

/**
 * One line of a judgments file: the judge's output object for a task exactly as the prompt
 * asks for it (`{dimension: [{criterion, analysis, article_1_score, article_2_score}]}`), or
 * `null` with an `error` when the judge failed.
 */
export const raceJudgmentLineSchema = z.looseObject({
  id: taskIdSchema.optional(),
  prompt: z.string(),
  judgment: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().optional(),
});
/** One line of a judgments file. */
export type RaceJudgmentLine = z.infer<typeof raceJudgmentLineSchema>;
