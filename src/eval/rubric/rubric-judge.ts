/**
 * Scoring reports with a query rubric: one judge call per (report, item), all concurrent under
 * one limit, each retried on unparsable output; a failed call is counted and leaves its item out
 * of the score (see {@link rubricScore}).
 */

import type { LlmClient } from "../../llm/client.ts";
import type { Role } from "../../llm/model-spec.ts";
import { countJudgeOutcomes, type JudgeCounts, judgeAll } from "./judge-call.ts";
import { RUBRIC_JUDGE_SYSTEM, rubricJudgePrompt, rubricRatingSchema } from "./rubric-prompts.ts";
import { normalizeRating, type RubricDenominator, type RubricScore, rubricScore } from "./rubric-score.ts";
import type { QueryRubric, RubricItem } from "./rubric-types.ts";

/** A report to score. */
export interface ReportInput {
  /** A label (a file name). */
  name: string;
  /** The Markdown text. */
  text: string;
}

/** The judge's verdict on one item of one report. */
export interface ItemResult {
  index: number;
  item: RubricItem;
  /** 1–10, or null when the judge call failed. */
  rating: number | null;
  /** The normalised rating (r − 1) / 9, or null. */
  value: number | null;
  reason: string | null;
  calls: number;
  formatErrors: number;
  error?: { code: string; message: string };
}

/** One report's score. */
export interface ReportScore {
  name: string;
  items: ItemResult[];
  score: RubricScore;
  judge: JudgeCounts;
}

/** Options of {@link scoreReports}. */
export interface ScoreReportsOptions {
  /** Judge calls in flight (default 4). */
  concurrency?: number;
  /** The role whose model judges (default "judge"). */
  role?: Role;
  signal?: AbortSignal;
  /** Called as each judge call settles. */
  onProgress?: (done: number, total: number) => void;
  /** Σw (default, the paper's Eq. 2) or Σ|w|. */
  denominator?: RubricDenominator;
}

/** Scores each report against every rubric item; all judge calls share one concurrency limit. */
export async function scoreReports(
  client: LlmClient,
  rubric: QueryRubric,
  reports: readonly ReportInput[],
  options: ScoreReportsOptions = {},
): Promise<ReportScore[]> {
  const { role = "judge", concurrency = 4 } = options;
  const jobs = reports.flatMap((report, r) =>
    rubric.items.map((item, index) => ({ r, report, item, index })),
  );
  let done = 0;
  const outcomes = await judgeAll(
    client,
    jobs,
    (job) => ({
      role,
      system: RUBRIC_JUDGE_SYSTEM,
      prompt: rubricJudgePrompt(rubric.query, job.item, job.report.text),
      schema: rubricRatingSchema,
      temperature: 0,
      maxOutputTokens: 512,
    }),
    {
      concurrency,
      signal: options.signal,
      onSettled: () => {
        done++;
        options.onProgress?.(done, jobs.length);
      },
    },
  );
  return reports.map((report, r) => {
    const mine = jobs.map((job, j) => ({ job, outcome: outcomes[j]! })).filter(({ job }) => job.r === r);
    const items: ItemResult[] = mine.map(({ job, outcome }) => ({
      index: job.index,
      item: job.item,
      rating: outcome.ok ? outcome.value.rating : null,
      value: outcome.ok ? normalizeRating(outcome.value.rating) : null,
      reason: outcome.ok ? outcome.value.reason : null,
      calls: outcome.calls,
      formatErrors: outcome.formatErrors,
      ...(outcome.ok ? {} : { error: outcome.error }),
    }));
    return {
      name: report.name,
      items,
      score: rubricScore(
        rubric.items,
        items.map((i) => i.rating),
        options.denominator ? { denominator: options.denominator } : {},
      ),
      judge: countJudgeOutcomes(mine.map((m) => m.outcome)),
    };
  });
}

/** Which of two scored reports is better: "a", "b", "tie", or null when either score is unknown. */
export function compareScores(a: RubricScore, b: RubricScore): "a" | "b" | "tie" | null {
  if (a.score === null || b.score === null) return null;
  if (a.score === b.score) return "tie";
  return a.score > b.score ? "a" : "b";
}
