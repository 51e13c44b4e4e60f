/**
 * xbench-DeepSearch rows: the encrypted CSVs (`id, prompt, answer, reference_steps, canary`)
 * decrypted in memory by the evaluation toolkit's loader, as question rows with the reference
 * answer (`answer`, what the smtl and MindDR ORM judges compare against) and the published
 * solution path kept as `referenceSteps` (a source for a row's key entities, which the
 * benchmark does not list). Rows are marked `benchmark: "xbench-deepsearch"` (or the name
 * given, e.g. `xbench-deepsearch-2510`). The plaintext is never written anywhere by reading.
 */

import { parseXbenchCsv } from "../../eval/deepsearch/xbench.ts";
import { parseInput } from "../parse-input.ts";
import { type QuestionRow, questionRowSchema } from "../question-row.ts";
import { readBenchmarkText } from "./read-file.ts";

/** The benchmark's name on its rows. */
export const XBENCH_DEEPSEARCH = "xbench-deepsearch";

/** Question rows from the text of an xbench-DeepSearch CSV. */
export function xbenchRows(
  csv: string,
  options: { benchmark?: string; source?: string } = {},
): QuestionRow[] {
  return parseXbenchCsv(csv, options.source).map((q) =>
    parseInput(
      questionRowSchema,
      {
        id: q.id,
        prompt: q.question,
        answer: q.answer.trim(),
        ...(q.referenceSteps?.trim() ? { referenceSteps: q.referenceSteps } : {}),
        benchmark: options.benchmark ?? XBENCH_DEEPSEARCH,
      },
      `xbench question ${q.id}`,
    ),
  );
}

/** Reads and decrypts an xbench-DeepSearch CSV. */
export function readXbenchRows(path: string, options: { benchmark?: string } = {}): QuestionRow[] {
  return xbenchRows(readBenchmarkText(path, "xbench-DeepSearch questions"), { ...options, source: path });
}
