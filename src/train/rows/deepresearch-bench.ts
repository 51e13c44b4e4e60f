/**
 * DeepResearch Bench rows (Du et al., 2025): the 100 tasks of `query.jsonl`
 * (`{id, topic, language, prompt}`) as question rows, each with its RACE criteria from
 * `criteria.jsonl` as the row's rubric and, when a reference-article file is given
 * (`{id?, prompt, article}`, the reports RACE compares against), that article as the row's
 * reference report.
 *
 * Criteria and articles are matched to a task by its exact `prompt` string, as the RACE
 * scripts join them, not by id. A task without criteria gets no rubric; two criteria lines or
 * two articles for one prompt are refused. Rows keep `topic` and `language` and are marked
 * `benchmark: "deepresearch-bench"`.
 */

import type { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { parseJsonl } from "../../eval/race/jsonl.ts";
import {
  type RaceArticle,
  type RaceCriteria,
  type RaceQuery,
  raceArticleSchema,
  raceCriteriaSchema,
  raceQuerySchema,
} from "../../eval/race/records.ts";
import { parseInput } from "../parse-input.ts";
import { type QuestionRow, questionRowSchema } from "../question-row.ts";
import { readBenchmarkText } from "./read-file.ts";

/** The benchmark's name on its rows (and `data_source` in a verl export). */
export const DEEPRESEARCH_BENCH = "deepresearch-bench";

function byPrompt<T extends { prompt: string }>(items: readonly T[], what: string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    if (map.has(item.prompt))
      throw new DossierError("INPUT_INVALID", `two ${what} for one prompt: ${item.prompt.slice(0, 60)}`);
    map.set(item.prompt, item);
  }
  return map;
}

/** Question rows from parsed DeepResearch Bench lines (see the module comment). */
export function deepResearchBenchRows(input: {
  queries: readonly RaceQuery[];
  criteria?: readonly RaceCriteria[];
  references?: readonly RaceArticle[];
}): QuestionRow[] {
  const criteria = byPrompt(input.criteria ?? [], "criteria lines");
  const references = byPrompt(input.references ?? [], "reference articles");
  return input.queries.map((q) => {
    const rubric = criteria.get(q.prompt);
    const reference = references.get(q.prompt)?.article;
    return parseInput(
      questionRowSchema,
      {
        id: q.id,
        prompt: q.prompt,
        ...(rubric ? { rubric } : {}),
        ...(reference?.trim() ? { reference } : {}),
        ...(q.topic === undefined ? {} : { topic: q.topic }),
        ...(q.language === undefined ? {} : { language: q.language }),
        benchmark: DEEPRESEARCH_BENCH,
      },
      `DeepResearch Bench task ${q.id}`,
    );
  });
}

/** Reads the benchmark's files (queries, and criteria and reference articles when given). */
export function readDeepResearchBenchRows(paths: {
  queries: string;
  criteria?: string;
  references?: string;
}): QuestionRow[] {
  const read = <T>(path: string, what: string, schema: z.ZodType<T>) =>
    parseJsonl(readBenchmarkText(path, `DeepResearch Bench ${what}`), schema, path);
  return deepResearchBenchRows({
    queries: read(paths.queries, "queries", raceQuerySchema),
    ...(paths.criteria ? { criteria: read(paths.criteria, "criteria", raceCriteriaSchema) } : {}),
    ...(paths.references
      ? { references: read(paths.references, "reference articles", raceArticleSchema) }
      : {}),
  });
}
