/**
 * A file of question rows, as `dossier train rollouts` reads it: Dossier's own JSONL of
 * `{id, prompt, answer?, entities?, reference?, rubric?}` (one row per line, blank lines
 * skipped; a bad line is an INPUT_INVALID error naming its line number), or a benchmark's own
 * file read by its reader (DeepResearch Bench's `query.jsonl` with its criteria and reference
 * articles, DeepConsult's `queries.csv`, an xbench-DeepSearch CSV). Two rows with one id are
 * refused, and so is a file without rows.
 */

import { DossierError } from "../../core/errors.ts";
import { parseInput } from "../parse-input.ts";
import { type QuestionRow, questionRowSchema } from "../question-row.ts";
import { readDeepConsultRows } from "./deepconsult.ts";
import { readDeepResearchBenchRows } from "./deepresearch-bench.ts";
import { readBenchmarkText } from "./read-file.ts";
import { readXbenchRows } from "./xbench.ts";

/** The kinds of row files. */
export const ROW_FILE_KINDS = ["rows", "deepresearch-bench", "deepconsult", "xbench"] as const;
/** A kind of row file. */
export type RowFileKind = (typeof ROW_FILE_KINDS)[number];

/** Question rows from the text of a JSONL file of rows (see the module comment). */
export function questionRowsOfJsonl(text: string, source = "rows"): QuestionRow[] {
  const rows: QuestionRow[] = [];
  text
    .replace(/^\ufeff/, "")
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new DossierError("INPUT_INVALID", `${source}:${i + 1}: not JSON`);
      }
      rows.push(parseInput(questionRowSchema, value, `${source}:${i + 1}`));
    });
  return checkedRows(rows, source);
}

/** Refuses no rows and repeated ids. */
export function checkedRows(rows: QuestionRow[], source: string): QuestionRow[] {
  if (rows.length === 0) throw new DossierError("INPUT_INVALID", `${source}: no question rows`);
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.id))
      throw new DossierError("INPUT_INVALID", `${source}: question id ${row.id} appears twice`);
    seen.add(row.id);
  }
  return rows;
}

/** Options of {@link readRowsFile}. */
export interface RowsFileOptions {
  /** Default `rows`. */
  kind?: RowFileKind;
  /** DeepResearch Bench: its criteria JSONL (rubrics). */
  criteria?: string;
  /** DeepResearch Bench: a JSONL of reference articles. */
  references?: string;
}

/** Reads a file of question rows of the given kind. */
export function readRowsFile(path: string, options: RowsFileOptions = {}): QuestionRow[] {
  const kind = options.kind ?? "rows";
  if (kind !== "deepresearch-bench" && (options.criteria || options.references))
    throw new DossierError(
      "INPUT_INVALID",
      "criteria and reference articles go with DeepResearch Bench rows",
    );
  switch (kind) {
    case "rows":
      return questionRowsOfJsonl(readBenchmarkText(path, "question rows"), path);
    case "deepresearch-bench":
      return checkedRows(
        readDeepResearchBenchRows({
          queries: path,
          ...(options.criteria ? { criteria: options.criteria } : {}),
          ...(options.references ? { references: options.references } : {}),
        }),
        path,
      );
    case "deepconsult":
      return checkedRows(readDeepConsultRows(path), path);
    case "xbench":
      return checkedRows(readXbenchRows(path), path);
    default:
      throw new DossierError(
        "INPUT_INVALID",
        `unknown kind of row file "${kind as string}" (known: ${ROW_FILE_KINDS.join(", ")})`,
      );
  }
}
