/**
 * The rewards' judges behind a model: the functions the rewards take as dependencies, made
 * from an LLM client whose `judge` role answers (the evaluation toolkit's judge client), so
 * `dossier train reward` can score rollouts with the configured judge model.
 *
 * - answer judge: the deep-search answer-equivalence judge (eval/deepsearch/answer-judge.ts);
 * - pipeline judge (warp): one call scoring the report 0–10 on the four RACE dimensions
 *   (pipeline-judge.ts), normalised to [0, 1];
 * - rubric item rater: the rubric judge's per-item rating 1–10 (eval/rubric);
 * - RACE scorer (minddr-report): the full RACE protocol against the row's reference report
 *   and criteria (eval/race), its overall score.
 *
 * A judge that gives no usable answer is a PROVIDER_ERROR: a reward is never computed from a
 * missing verdict.
 */

import { DossierError } from "../../core/errors.ts";
import { evaluateAnswers } from "../../eval/deepsearch/answer-judge.ts";
import { runRace } from "../../eval/race/runner.ts";
import {
  RUBRIC_JUDGE_SYSTEM,
  rubricJudgePrompt,
  rubricRatingSchema,
} from "../../eval/rubric/rubric-prompts.ts";
import type { RubricItem } from "../../eval/rubric/rubric-types.ts";
import type { LlmClient } from "../../llm/client.ts";
import { generateStructured } from "../../llm/structured.ts";
import { rowRaceCriteria } from "../question-row.ts";
import type { AnswerJudge } from "../rewards/answer-judge.ts";
import type { RaceScorer } from "../rewards/minddr-report.ts";
import type { RubricItemRater } from "../rewards/rubric.ts";
import type { PipelineJudge } from "../rewards/warp-pipeline.ts";
import { pipelineJudgeRequest } from "./pipeline-judge.ts";

/**
 * `judge` asked once per distinct input: the same question, reference and response share one
 * verdict (a judge at temperature 0 gives the same answer; MindDR's three ORM judges of one
 * model are then one call). A failed verdict is not kept.
 */
export function onceEach(judge: AnswerJudge): AnswerJudge {
  const seen = new Map<string, ReturnType<AnswerJudge>>();
  return (input) => {
    const key = JSON.stringify([input.question, input.reference, input.response]);
    let verdict = seen.get(key);
    if (!verdict) {
      verdict = judge(input);
      seen.set(key, verdict);
      verdict.catch(() => seen.delete(key));
    }
    return verdict;
  };
}

/** The answer-equivalence judge of the evaluation toolkit, as an {@link AnswerJudge}. */
export function llmAnswerJudge(client: LlmClient): AnswerJudge {
  return async ({ question, reference, response }) => {
    const { results } = await evaluateAnswers(
      client,
      [{ id: "q", question, answer: reference }],
      new Map([["q", response]]),
      { concurrency: 1 },
    );
    const result = results[0]!;
    if (result.judgement !== "correct" && result.judgement !== "incorrect")
      throw new DossierError(
        "PROVIDER_ERROR",
        `the answer judge gave no verdict${result.error ? `: ${result.error.message}` : ""}`,
      );
    return { correct: result.judgement === "correct", rationale: result.rationale ?? "" };
  };
}

/** WARP's pipeline judge: the report scored on the four dimensions, each in [0, 1]. */
export function llmPipelineJudge(client: LlmClient): PipelineJudge {
  return async ({ question, report, row }) => {
    const { value } = await generateStructured(client, pipelineJudgeRequest(question, report, row));
    return {
      comprehensiveness: value.comprehensiveness / 10,
      insight: value.insight / 10,
      instruction_following: value.instruction_following / 10,
      readability: value.readability / 10,
    };
  };
}

/** The rubric judge's rating of one item (1–10), as a {@link RubricItemRater}. */
export function llmRubricRater(client: LlmClient): RubricItemRater {
  return async ({ query, item, report }) => {
    try {
      const { value } = await generateStructured(client, {
        role: "judge",
        system: RUBRIC_JUDGE_SYSTEM,
        prompt: rubricJudgePrompt(query, item as RubricItem, report),
        schema: rubricRatingSchema,
        temperature: 0,
      });
      return value.rating;
    } catch (error) {
      if (error instanceof DossierError && error.code === "STRUCTURED_OUTPUT_FAILED") return null;
      throw error;
    }
  };
}

/** RACE against the row's reference report and criteria, as a {@link RaceScorer} (the overall score). */
export function llmRaceScorer(client: LlmClient): RaceScorer {
  return async ({ report, row }) => {
    const criteria = rowRaceCriteria(row);
    if (!criteria || !row.reference)
      throw new DossierError(
        "INPUT_INVALID",
        `row ${row.id}: RACE needs the row's criteria (rubric) and its reference report`,
      );
    const prompt = criteria.prompt;
    const { tasks } = await runRace({
      llm: client,
      criteria: [criteria],
      targets: [{ id: row.id, prompt, article: report }],
      references: [{ id: row.id, prompt, article: row.reference }],
      skipCleaning: true,
      concurrency: 1,
    });
    const score = tasks[0]?.row.overall_score;
    if (typeof score !== "number")
      throw new DossierError(
        "PROVIDER_ERROR",
        `RACE gave no score for row ${row.id}: ${tasks[0]?.row.error ?? "?"}`,
      );
    return score;
  };
}
