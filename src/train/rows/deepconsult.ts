/**
 * DeepConsult rows (You.com's business and consulting research prompts): `queries.csv`, a
 * header `query` and one prompt per record (quoted records may span lines). The file has no
 * ids, so a row's id is its position among the records, from 1 — as `dossier batch` numbers
 * the same file. Prompts are trimmed; rows are marked `benchmark: "deepconsult"`.
 */

import { DossierError } from "../../core/errors.ts";
import { parseCsvRecords } from "../../eval/deepsearch/csv.ts";
import { parseInput } from "../parse-input.ts";
import { type QuestionRow, questionRowSchema } from "../question-row.ts";
import { readBenchmarkText } from "./read-file.ts";

/** The benchmark's name on its rows. */
export const DEEPCONSULT = "deepconsult";

/** Question rows from the text of DeepConsult's `queries.csv`. */
export function deepConsultRows(csv: string, source = "DeepConsult queries"): QuestionRow[] {
  const records = parseCsvRecords(csv);
  if (records.length > 0 && !("query" in records[0]!))
    throw new DossierError("INPUT_INVALID", `${source}: no "query" column`);
  return records.map((record, i) => {
    const prompt = record.query!.trim();
    if (!prompt) throw new DossierError("INPUT_INVALID", `${source}: record ${i + 1} has an empty query`);
    return parseInput(
      questionRowSchema,
      { id: String(i + 1), prompt, benchmark: DEEPCONSULT },
      `${source}: record ${i + 1}`,
    );
  });
}

/** Reads DeepConsult's `queries.csv`. */
export function readDeepConsultRows(path: string): QuestionRow[] {
  return deepConsultRows(readBenchmarkText(path, "DeepConsult queries"), path);
}
