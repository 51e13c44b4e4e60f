/**
 * What RACE writes with `--out <dir>`: the benchmark's `raw_results.jsonl` (one row per task,
 * failed tasks as `{id, prompt, error}` rows, which the benchmark's summary also skips) and
 * `race_result.txt`, Dossier's `judgments.jsonl` (recomputable with `--judgments`), the
 * cleaned targets and per-task details (stage, error, calls, each criterion's weight match).
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirs } from "../../store/make-dirs.ts";
import { writeJsonl } from "./jsonl.ts";
import type { RaceResultRow } from "./records.ts";
import type { RaceRunResult } from "./runner.ts";
import { formatRaceResultText, type RaceSummary, raceSummaryJson } from "./summary.ts";

/** File names written into the output directory. */
export const RACE_OUTPUT_FILES = {
  rawResults: "raw_results.jsonl",
  resultText: "race_result.txt",
  judgments: "judgments.jsonl",
  cleaned: "cleaned.jsonl",
  details: "details.jsonl",
  summary: "summary.json",
} as const;

/** Writes the rows, the summary text and the summary JSON. */
export function writeRaceSummaryFiles(
  dir: string,
  rows: readonly RaceResultRow[],
  summary: RaceSummary,
): void {
  makeDirs(dir);
  writeJsonl(join(dir, RACE_OUTPUT_FILES.rawResults), rows);
  writeFileSync(join(dir, RACE_OUTPUT_FILES.resultText), formatRaceResultText(summary));
  writeFileSync(
    join(dir, RACE_OUTPUT_FILES.summary),
    `${JSON.stringify(raceSummaryJson(summary), null, 2)}\n`,
  );
}

/** Writes every file of a full run; returns the paths written. */
export function writeRaceRunFiles(dir: string, result: RaceRunResult, cleaned: boolean): string[] {
  writeRaceSummaryFiles(
    dir,
    result.tasks.map((t) => t.row),
    result.summary,
  );
  writeJsonl(
    join(dir, RACE_OUTPUT_FILES.judgments),
    result.tasks.map((t) => t.judgmentLine),
  );
  const written: string[] = [
    RACE_OUTPUT_FILES.rawResults,
    RACE_OUTPUT_FILES.resultText,
    RACE_OUTPUT_FILES.summary,
    RACE_OUTPUT_FILES.judgments,
  ];
  if (cleaned) {
    writeJsonl(
      join(dir, RACE_OUTPUT_FILES.cleaned),
      result.tasks
        .filter((t) => t.judgedArticle !== undefined)
        .map((t) => ({
          ...(t.id === undefined ? {} : { id: t.id }),
          prompt: t.prompt,
          article: t.judgedArticle,
        })),
    );
    written.push(RACE_OUTPUT_FILES.cleaned);
  }
  writeJsonl(
    join(dir, RACE_OUTPUT_FILES.details),
    result.tasks.map((t) => ({
      ...(t.id === undefined ? {} : { id: t.id }),
      prompt: t.prompt,
      language: t.language,
      ok: t.row.error === undefined,
      ...(t.stage ? { stage: t.stage, error: t.row.error } : {}),
      judge_calls: t.judgeCalls,
      format_errors: t.formatErrors,
      ...(t.detail
        ? {
            target_dims: t.detail.target.dims,
            reference_dims: t.detail.reference.dims,
            target_total: t.detail.target.total,
            reference_total: t.detail.reference.total,
            criteria: t.detail.criteria,
            unmatched: t.detail.unmatched,
          }
        : {}),
    })),
  );
  written.push(RACE_OUTPUT_FILES.details);
  return written.map((f) => join(dir, f));
}
