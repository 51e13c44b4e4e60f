/**
 * Scoring stored judge outputs without calling a model: each judgments line is joined to
 * its criteria on the exact prompt string and scored with {@link scoreJudgment}; a line
 * without a judgment, without criteria or whose scoring fails becomes an error row (dropped
 * from the means and counted).
 */

import { toDossierError } from "../../core/errors.ts";
import type { RaceCriteria, RaceJudgmentLine, RaceResultRow, TaskId } from "./records.ts";
import { scoreJudgment, type WeightedScores } from "./scoring.ts";
import { type RaceSummary, summarizeRaceResults } from "./summary.ts";

/** Criteria by exact prompt string (a repeated prompt keeps its last line, as a Python dict does). */
export function criteriaByPrompt(criteria: readonly RaceCriteria[]): Map<string, RaceCriteria> {
  return new Map(criteria.map((c) => [c.prompt, c]));
}

/** The result row of one task, and the scoring detail when it scored. */
export interface ScoredRow {
  row: RaceResultRow;
  detail?: WeightedScores;
}

/** Scores one task's judgment into a `raw_results.jsonl` row, or an error row. */
export function scoreJudgmentRow(
  id: TaskId | undefined,
  prompt: string,
  judgment: Record<string, unknown> | null,
  criteria: RaceCriteria | undefined,
  error?: string,
): ScoredRow {
  const base = { ...(id === undefined ? {} : { id }), prompt };
  if (judgment === null) return { row: { ...base, error: error ?? "no judgment" } };
  if (!criteria) return { row: { ...base, error: "evaluation criteria not found for this prompt" } };
  try {
    const { scores, detail } = scoreJudgment(judgment, criteria);
    return { row: { ...base, ...scores }, detail };
  } catch (e) {
    return { row: { ...base, error: `error calculating scores: ${toDossierError(e).message}` } };
  }
}

/** Orders rows by id like the benchmark's `save_results` (numbers numerically, then strings). */
export function sortRowsById<T extends { id?: TaskId }>(rows: readonly T[]): T[] {
  const key = (id: TaskId | undefined): [number, number, string] =>
    id === undefined ? [2, 0, ""] : typeof id === "number" ? [0, id, ""] : [1, 0, id];
  return [...rows].sort((a, b) => {
    const [ka, na, sa] = key(a.id);
    const [kb, nb, sb] = key(b.id);
    return ka - kb || na - nb || (sa < sb ? -1 : sa > sb ? 1 : 0);
  });
}

/** The outcome of a recompute. */
export interface RaceRecompute {
  /** One row per judgments line, sorted by id. */
  rows: RaceResultRow[];
  /** Scoring detail per scored line, in input order. */
  details: Array<{ id?: TaskId; prompt: string; detail: WeightedScores }>;
  summary: RaceSummary;
}

/** Recomputes every score from stored judgments. */
export function recomputeFromJudgments(
  criteria: readonly RaceCriteria[],
  lines: readonly RaceJudgmentLine[],
): RaceRecompute {
  const byPrompt = criteriaByPrompt(criteria);
  const rows: RaceResultRow[] = [];
  const details: RaceRecompute["details"] = [];
  for (const line of lines) {
    const scored = scoreJudgmentRow(
      line.id,
      line.prompt,
      line.judgment,
      byPrompt.get(line.prompt),
      line.error,
    );
    rows.push(scored.row);
    if (scored.detail) details.push({ id: line.id, prompt: line.prompt, detail: scored.detail });
  }
  return { rows: sortRowsById(rows), details, summary: summarizeRaceResults(rows) };
}
