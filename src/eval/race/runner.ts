/**
 * The full RACE protocol (DeepResearch Bench `deepresearch_bench_race.py`): every target
 * article is joined to its criteria and reference article on the exact prompt string; its
 * citations are stripped (unless skipped); one judge call compares it with the reference on
 * every criterion; the answer is scored. Tasks run concurrently under a limit. A task that
 * fails at any stage is kept as an error row: dropped from the means, counted, reported.
 *
 * Differences from the benchmark: the task set is the target file (a target without
 * criteria or reference is a counted failure instead of being skipped silently; the query
 * file only supplies ids and languages); unparsable judge answers are re-asked with the
 * validation error (default 2 re-asks) instead of resent up to 10 times.
 */

import { toDossierError } from "../../core/errors.ts";
import type { LlmClient } from "../../llm/client.ts";
import { generateStructured } from "../../llm/structured.ts";
import { runConcurrently } from "../concurrency.ts";
import { cleanArticle } from "./cleaner.ts";
import { buildJudgePrompt, raceJudgmentSchema } from "./judge-prompt.ts";
import { type PromptLanguage, promptLanguage } from "./language.ts";
import { criteriaByPrompt, scoreJudgmentRow, sortRowsById } from "./recompute.ts";
import type {
  RaceArticle,
  RaceCriteria,
  RaceJudgmentLine,
  RaceQuery,
  RaceResultRow,
  TaskId,
} from "./records.ts";
import type { WeightedScores } from "./scoring.ts";
import { type RaceSummary, summarizeRaceResults } from "./summary.ts";

/** Where a task failed. */
export type RaceStage = "join" | "clean" | "judge" | "score";

/** One task of a run and what happened to it. */
export interface RaceTaskResult {
  id?: TaskId;
  prompt: string;
  language: PromptLanguage;
  /** The `raw_results.jsonl` row (with `error` when the task failed). */
  row: RaceResultRow;
  /** The judgments-file line. */
  judgmentLine: RaceJudgmentLine;
  /** Set when the task failed. */
  stage?: RaceStage;
  /** The target as judged (cleaned unless cleaning was skipped). */
  judgedArticle?: string;
  /** Judge calls made and answers rejected as unparsable. */
  judgeCalls: number;
  formatErrors: number;
  detail?: WeightedScores;
}

/** Options of {@link runRace}. */
export interface RaceRunOptions {
  /** Client whose `judge` role makes every call (cleaning and judging). */
  llm: LlmClient;
  criteria: readonly RaceCriteria[];
  targets: readonly RaceArticle[];
  references: readonly RaceArticle[];
  /** Ids and languages by prompt; optional. */
  queries?: readonly RaceQuery[];
  /** Judge the target as given (already cleaned). */
  skipCleaning?: boolean;
  /** Tasks in flight at once. Default 4. */
  concurrency?: number;
  /** Re-asks after an unparsable judge answer. Default 2. */
  maxRepairs?: number;
  /** Chunk size for cleaning long reports. */
  cleanChunkChars?: number;
  signal?: AbortSignal;
  /** Called as each task finishes. */
  onTask?: (task: RaceTaskResult, done: number, total: number) => void;
}

/** Everything a run produced. */
export interface RaceRunResult {
  /** One per target prompt, sorted by id. */
  tasks: RaceTaskResult[];
  summary: RaceSummary;
  /** Judge answers rejected as unparsable, over all tasks. */
  formatErrors: number;
}

interface PlannedTask {
  id?: TaskId;
  prompt: string;
  language: PromptLanguage;
  target: RaceArticle;
  reference?: RaceArticle;
  criteria?: RaceCriteria;
}

/** Joins targets to criteria, references and queries on the exact prompt string. */
export function planRaceTasks(
  options: Pick<RaceRunOptions, "criteria" | "targets" | "references" | "queries">,
): PlannedTask[] {
  const criteria = criteriaByPrompt(options.criteria);
  const references = new Map(options.references.map((a) => [a.prompt, a]));
  const queries = new Map((options.queries ?? []).map((q) => [q.prompt, q]));
  const targets = new Map(options.targets.map((a) => [a.prompt, a]));
  return [...targets.values()].map((target) => {
    const query = queries.get(target.prompt);
    const id = query?.id ?? target.id;
    return {
      ...(id === undefined ? {} : { id }),
      prompt: target.prompt,
      language: promptLanguage(target.prompt, query?.language),
      target,
      reference: references.get(target.prompt),
      criteria: criteria.get(target.prompt),
    };
  });
}

function failed(
  task: PlannedTask,
  stage: RaceStage,
  error: string,
  calls = 0,
  formatErrors = 0,
): RaceTaskResult {
  const base = { ...(task.id === undefined ? {} : { id: task.id }), prompt: task.prompt };
  return {
    ...base,
    language: task.language,
    row: { ...base, error },
    judgmentLine: { ...base, judgment: null, error },
    stage,
    judgeCalls: calls,
    formatErrors,
  };
}

async function runTask(task: PlannedTask, options: RaceRunOptions): Promise<RaceTaskResult> {
  const missing = [!task.criteria && "evaluation criteria", !task.reference && "reference article"].filter(
    Boolean,
  );
  if (missing.length) return failed(task, "join", `${missing.join(" and ")} not found for this prompt`);

  let article = task.target.article;
  if (!options.skipCleaning) {
    try {
      article = (
        await cleanArticle(article, {
          llm: options.llm,
          language: task.language,
          chunkChars: options.cleanChunkChars,
        })
      ).text;
    } catch (error) {
      const e = toDossierError(error);
      if (e.code === "CANCELLED") throw e;
      return failed(task, "clean", `cleaning failed: ${e.message}`);
    }
  }

  const { system, prompt } = buildJudgePrompt({
    language: task.language,
    task: task.prompt,
    target: article,
    reference: task.reference!.article,
    criteria: task.criteria!,
  });
  const maxRepairs = options.maxRepairs ?? 2;
  let judgment: Record<string, unknown>;
  let calls: number;
  let formatErrors: number;
  try {
    const result = await generateStructured(options.llm, {
      role: "judge",
      system,
      prompt,
      schema: raceJudgmentSchema,
      maxRepairs,
    });
    judgment = result.value;
    calls = result.calls;
    formatErrors = result.formatErrors;
  } catch (error) {
    const e = toDossierError(error);
    if (e.code === "CANCELLED") throw e;
    const unparsable = e.code === "STRUCTURED_OUTPUT_FAILED";
    const calls = unparsable ? maxRepairs + 1 : 1;
    return {
      ...failed(task, "judge", `judge failed: ${e.message}`, calls, unparsable ? calls : 0),
      judgedArticle: article,
    };
  }

  const scored = scoreJudgmentRow(task.id, task.prompt, judgment, task.criteria);
  const base = { ...(task.id === undefined ? {} : { id: task.id }), prompt: task.prompt };
  return {
    ...base,
    language: task.language,
    row: scored.row,
    judgmentLine: { ...base, judgment },
    ...(scored.row.error === undefined ? {} : { stage: "score" as const }),
    judgedArticle: article,
    judgeCalls: calls,
    formatErrors,
    ...(scored.detail ? { detail: scored.detail } : {}),
  };
}

/** Runs the full protocol. */
export async function runRace(options: RaceRunOptions): Promise<RaceRunResult> {
  const planned = planRaceTasks(options);
  const outcomes = await runConcurrently(planned, (task) => runTask(task, options), {
    concurrency: options.concurrency ?? 4,
    signal: options.signal,
    onSettled: (outcome, _task, _i, progress) => {
      if (outcome.ok) options.onTask?.(outcome.value, progress.done, progress.total);
    },
  });
  const tasks = outcomes.map((o, i) =>
    o.ok ? o.value : failed(planned[i]!, "judge", `unexpected failure: ${o.error.message}`),
  );
  const sorted = sortRowsById(tasks);
  return {
    tasks: sorted,
    summary: summarizeRaceResults(sorted.map((t) => t.row)),
    formatErrors: sorted.reduce((n, t) => n + t.formatErrors, 0),
  };
}
