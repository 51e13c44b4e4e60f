/**
 * The `verl` export: a Parquet dataset of questions in the layout verl's RL trainer reads
 * (the columns its data-preprocessing examples write). verl generates the rollouts itself, so
 * a line is a task with its ground truth, not a rollout:
 *
 * | column | Parquet type | content |
 * |---|---|---|
 * | `data_source` | string | the row's `benchmark`, else `dossier` (or the `dataSource` option) |
 * | `prompt` | list of struct {role, content} | an optional system turn, then the question as the user turn |
 * | `ability` | string | `deep-search` for a row with a reference answer, else `deep-research` |
 * | `reward_model` | struct {style, ground_truth} | `rule` and the answer; `model` and "" without one |
 * | `extra_info` | struct | `split`, `index` (int64, the line's position), `id`, `question`, and the nullable `answer`, `entities` (list of string), `reference`, `rubric` (JSON text) and `language` |
 *
 * verl hands `data_source`, `reward_model.ground_truth` and `extra_info` to the reward
 * function, so a custom reward for report tasks finds the rubric and the reference report in
 * `extra_info`. Other fields of a row are not written.
 */

import { parquetWriteBuffer, type SchemaElement } from "hyparquet-writer";
import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { QuestionRow } from "../question-row.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { questionPrompt } from "./chat-format.ts";

/** One line of a `verl` file, as an object (before it is written as Parquet). */
export const verlRecordSchema = z.strictObject({
  data_source: z.string().min(1),
  prompt: z
    .array(z.strictObject({ role: z.enum(["system", "user"]), content: z.string() }))
    .min(1)
    .refine((turns) => turns.at(-1)?.role === "user", { message: "the prompt ends with the user turn" }),
  ability: z.string().min(1),
  reward_model: z.strictObject({ style: z.enum(["rule", "model"]), ground_truth: z.string() }),
  extra_info: z.strictObject({
    split: z.string().min(1),
    index: z.number().int().nonnegative(),
    id: z.string().min(1),
    question: z.string().min(1),
    answer: z.string().nullable(),
    entities: z.array(z.string()).nullable(),
    reference: z.string().nullable(),
    /** The row's rubric (query-specific items or RACE criteria) as JSON text. */
    rubric: z.string().nullable(),
    language: z.string().nullable(),
  }),
});
/** One line of a `verl` file. */
export type VerlRecord = z.infer<typeof verlRecordSchema>;

/** Options of {@link verlRecords}. */
export interface VerlOptions {
  /** The `data_source` of every line (default: the row's `benchmark`, else `dossier`). */
  dataSource?: string;
  /** `extra_info.split` (default `train`). */
  split?: string;
  /** A system turn before the question. */
  systemPrompt?: string;
}

const optionalString = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** The `verl` records of question rows (see the module comment). Two rows with one id are refused. */
export function verlRecords(rows: readonly QuestionRow[], options: VerlOptions = {}): VerlRecord[] {
  const ids = new Set<string>();
  return rows.map((row, index) => {
    if (ids.has(row.id)) throw new DossierError("INPUT_INVALID", `question ${row.id} is given twice`);
    ids.add(row.id);
    const answer = row.answer ?? null;
    return verlRecordSchema.parse({
      data_source: options.dataSource ?? optionalString(row.benchmark) ?? "dossier",
      prompt: questionPrompt(row.prompt, options.systemPrompt),
      ability: answer === null ? "deep-research" : "deep-search",
      reward_model:
        answer === null ? { style: "model", ground_truth: "" } : { style: "rule", ground_truth: answer },
      extra_info: {
        split: options.split ?? "train",
        index,
        id: row.id,
        question: row.prompt,
        answer,
        entities: row.entities ? [...row.entities] : null,
        reference: row.reference ?? null,
        rubric: row.rubric === undefined ? null : JSON.stringify(row.rubric),
        language: optionalString(row.language),
      },
    });
  });
}

/** The question rows of recorded runs, once each in the order first met; one id with two prompts is refused. */
export function questionRowsOfRuns(runs: readonly RecordedRun[]): QuestionRow[] {
  const rows = new Map<string, QuestionRow>();
  for (const run of runs) {
    const known = rows.get(run.row.id);
    if (!known) rows.set(run.row.id, run.row);
    else if (known.prompt !== run.row.prompt)
      throw new DossierError("INPUT_INVALID", `question ${run.row.id} has two different prompts`);
  }
  return [...rows.values()];
}

const text = (name: string, optional = false): SchemaElement => ({
  name,
  type: "BYTE_ARRAY",
  converted_type: "UTF8",
  repetition_type: optional ? "OPTIONAL" : "REQUIRED",
});

/** The Parquet schema of a `verl` file (three-level lists, as Arrow writes them). */
export const VERL_PARQUET_SCHEMA: readonly SchemaElement[] = [
  { name: "root", num_children: 5 },
  text("data_source"),
  { name: "prompt", repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", repetition_type: "REQUIRED", num_children: 2 },
  text("role"),
  text("content"),
  text("ability"),
  { name: "reward_model", repetition_type: "REQUIRED", num_children: 2 },
  text("style"),
  text("ground_truth"),
  { name: "extra_info", repetition_type: "REQUIRED", num_children: 9 },
  text("split"),
  { name: "index", type: "INT64", repetition_type: "REQUIRED" },
  text("id"),
  text("question"),
  text("answer", true),
  { name: "entities", repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  text("element"),
  text("reference", true),
  text("rubric", true),
  text("language", true),
];

/** The Parquet bytes of `verl` records (validated first; an empty list is refused). */
export function verlParquet(records: readonly VerlRecord[]): Uint8Array {
  if (records.length === 0)
    throw new DossierError("INPUT_INVALID", "a verl file needs at least one question");
  const rows = records.map((r) => verlRecordSchema.parse(r));
  const buffer = parquetWriteBuffer({
    schema: [...VERL_PARQUET_SCHEMA],
    columnData: [
      { name: "data_source", data: rows.map((r) => r.data_source) },
      { name: "prompt", data: rows.map((r) => r.prompt) },
      { name: "ability", data: rows.map((r) => r.ability) },
      { name: "reward_model", data: rows.map((r) => r.reward_model) },
      { name: "extra_info", data: rows.map((r) => ({ ...r.extra_info, index: BigInt(r.extra_info.index) })) },
    ],
    createdBy: "dossier",
  });
  return new Uint8Array(buffer);
}
