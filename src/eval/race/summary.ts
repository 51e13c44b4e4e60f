/**
 * Aggregating per-task RACE results as DeepResearch Bench's `summarize_results` does: rows
 * with an `error` are dropped (and counted here), every other row contributes its fractions
 * (a missing field counts as 0), and each figure is the mean over the rows that scored.
 */

import { formatFixed } from "./py-numbers.ts";
import type { RaceResultRow } from "./records.ts";

/** The RACE figures of a set of tasks. */
export interface RaceSummary {
  /** Mean task overall score; null when no task scored. */
  overall: number | null;
  comprehensiveness: number | null;
  insight: number | null;
  instruction_following: number | null;
  readability: number | null;
  /** Tasks that scored. */
  tasks: number;
  /** Tasks that failed (dropped from the means). */
  failed: number;
}

/** Means over the rows without an error. */
export function summarizeRaceResults(rows: readonly RaceResultRow[]): RaceSummary {
  const ok = rows.filter((r) => r.error === undefined);
  const mean = (pick: (r: RaceResultRow) => number | undefined): number | null => {
    if (ok.length === 0) return null;
    let sum = 0;
    for (const r of ok) sum += pick(r) ?? 0;
    return sum / ok.length;
  };
  return {
    overall: mean((r) => r.overall_score),
    comprehensiveness: mean((r) => r.comprehensiveness),
    insight: mean((r) => r.insight),
    instruction_following: mean((r) => r.instruction_following),
    readability: mean((r) => r.readability),
    tasks: ok.length,
    failed: rows.length - ok.length,
  };
}

const LABELS: ReadonlyArray<readonly [keyof RaceSummary, string]> = [
  ["comprehensiveness", "Comprehensiveness"],
  ["insight", "Insight"],
  ["instruction_following", "Instruction Following"],
  ["readability", "Readability"],
  ["overall", "Overall Score"],
];

function figure(value: number | null): string {
  return value === null ? "n/a" : formatFixed(value, 4);
}

/**
 * The figures as `race_result.txt` holds them (`Comprehensiveness: 0.4110` … `Overall Score:
 * 0.4218`), one per line.
 */
export function formatRaceResultText(summary: RaceSummary): string {
  return LABELS.map(([key, label]) => `${label}: ${figure(summary[key] as number | null)}\n`).join("");
}

/** The summary table the CLI prints: the five figures (4 decimals), then the task counts. */
export function formatRaceTable(summary: RaceSummary, title = "RACE"): string {
  const width = Math.max(...LABELS.map(([, l]) => l.length)) + 1;
  const lines = [title];
  for (const [key, label] of LABELS) {
    lines.push(`  ${`${label}:`.padEnd(width + 1)} ${figure(summary[key] as number | null)}`);
  }
  lines.push(`  ${"Tasks scored:".padEnd(width + 1)} ${summary.tasks}`);
  lines.push(`  ${"Tasks failed:".padEnd(width + 1)} ${summary.failed}`);
  return `${lines.join("\n")}\n`;
}

/** The `--json` object of a summary. */
export function raceSummaryJson(summary: RaceSummary): Record<string, number | null> {
  return {
    overall: summary.overall,
    comprehensiveness: summary.comprehensiveness,
    insight: summary.insight,
    instruction_following: summary.instruction_following,
    readability: summary.readability,
    tasks: summary.tasks,
    failed: summary.failed,
  };
}
