/**
 * Loading FACT's inputs and writing its outputs. Reports come from `.jsonl` files (one
 * `{id, prompt?, article, language?}` per line, the benchmark's raw-data format) or from
 * Markdown / text files (one report each; id = file name without extension). With `--out`,
 * FACT writes the benchmark's `validated.jsonl` and `fact_result.txt`, plus `summary.json`.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { DossierError } from "../../core/errors.ts";
import { makeDirs } from "../../store/make-dirs.ts";
import { readJsonl, writeJsonl } from "../race/jsonl.ts";
import { type FactReport, type FactValidated, factReportSchema } from "./records.ts";
import { type FactStats, factStatsJson, formatFactResultText } from "./stats.ts";

/** Reads reports from JSONL and Markdown files; ids must be unique across files. */
export function loadFactReports(paths: readonly string[]): FactReport[] {
  const reports: FactReport[] = [];
  for (const path of paths) {
    if (/\.jsonl$/i.test(path)) {
      reports.push(...readJsonl(path, factReportSchema));
      continue;
    }
    let article: string;
    try {
      article = readFileSync(path, "utf8");
    } catch (error) {
      throw new DossierError("INPUT_INVALID", `cannot read ${path}: ${(error as Error).message}`, {
        details: { path },
        cause: error,
      });
    }
    reports.push({ id: basename(path, extname(path)), article });
  }
  const seen = new Set<string>();
  for (const r of reports) {
    const key = String(r.id);
    if (seen.has(key)) throw new DossierError("INPUT_INVALID", `report id ${key} appears twice`);
    seen.add(key);
  }
  return reports;
}

/** File names FACT writes into the output directory. */
export const FACT_OUTPUT_FILES = {
  validated: "validated.jsonl",
  resultText: "fact_result.txt",
  summary: "summary.json",
} as const;

/** Writes the validations, the result text and the summary; returns the paths. */
export function writeFactFiles(dir: string, records: readonly FactValidated[], stats: FactStats): string[] {
  makeDirs(dir);
  const paths = Object.values(FACT_OUTPUT_FILES).map((f) => join(dir, f));
  writeJsonl(paths[0]!, records);
  writeFileSync(paths[1]!, formatFactResultText(stats));
  writeFileSync(paths[2]!, `${JSON.stringify(factStatsJson(stats), null, 2)}\n`);
  return paths;
}
