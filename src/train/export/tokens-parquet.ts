/**
 * The `tokens` export as Parquet (`--out FILE.parquet`), written with hyparquet-writer: one row
 * per token record (train/tokens/token-record.ts), the id and mask columns as lists of INT32, the
 * log-probs as a nullable list of DOUBLE, `completion_spans` as a list of `{start, end}`,
 * `segment_break` and `sampling` as structs, and `reward_components` (an open-ended object) as
 * JSON text. Three-level lists, as Arrow writes them, so pandas, pyarrow and datasets read it.
 */

import { parquetWriteBuffer, type SchemaElement } from "hyparquet-writer";
import { DossierError } from "../../core/errors.ts";
import { type TokenRecord, tokenRecordSchema } from "../tokens/token-record.ts";

type Repetition = "REQUIRED" | "OPTIONAL";
const text = (name: string, r: Repetition = "REQUIRED"): SchemaElement => ({
  name,
  type: "BYTE_ARRAY",
  converted_type: "UTF8",
  repetition_type: r,
});
const int = (name: string, r: Repetition = "REQUIRED"): SchemaElement => ({
  name,
  type: "INT32",
  repetition_type: r,
});
const double = (name: string, r: Repetition = "REQUIRED"): SchemaElement => ({
  name,
  type: "DOUBLE",
  repetition_type: r,
});
/** A list of `element` (three levels). */
const list = (name: string, element: SchemaElement, r: Repetition = "REQUIRED"): SchemaElement[] => [
  { name, repetition_type: r, converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { ...element, name: "element" },
];

/** The Parquet schema of a `tokens` file. */
export const TOKENS_PARQUET_SCHEMA: readonly SchemaElement[] = [
  { name: "root", num_children: 34 },
  text("id"),
  text("unit"),
  text("run_id"),
  text("question_id"),
  text("group_id"),
  int("group_index", "OPTIONAL"),
  text("strategy"),
  text("scope", "OPTIONAL"),
  text("role"),
  text("tool_call_id", "OPTIONAL"),
  int("segment", "OPTIONAL"),
  text("segment_start", "OPTIONAL"),
  { name: "segment_break", repetition_type: "OPTIONAL", num_children: 2 },
  text("after_call_id"),
  int("at_token"),
  ...list("call_ids", text("element")),
  int("turns"),
  ...list("prompt_ids", int("element")),
  ...list("response_ids", int("element")),
  ...list("response_mask", int("element")),
  ...list("loss_mask", int("element")),
  ...list("response_logprobs", double("element"), "OPTIONAL"),
  { name: "completion_spans", repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", repetition_type: "REQUIRED", num_children: 2 },
  int("start"),
  int("end"),
  text("token_source"),
  ...list("constrained_call_ids", text("element")),
  ...list("rejected_call_ids", text("element")),
  ...list("relabelled_call_ids", text("element")),
  ...list("format_errors", text("element")),
  text("finish_reason", "OPTIONAL"),
  text("policy"),
  text("policy_version", "OPTIONAL"),
  { name: "sampling", repetition_type: "REQUIRED", num_children: 4 },
  double("temperature", "OPTIONAL"),
  double("top_p", "OPTIONAL"),
  int("max_output_tokens", "OPTIONAL"),
  { name: "seed", type: "INT64", repetition_type: "OPTIONAL" },
  text("status"),
  double("reward", "OPTIONAL"),
  text("reward_components", "OPTIONAL"),
  double("advantage", "OPTIONAL"),
];

/** The Parquet bytes of token records (validated first; an empty list is refused). */
export function tokensParquet(records: readonly TokenRecord[]): Uint8Array {
  if (records.length === 0)
    throw new DossierError("INPUT_INVALID", "a tokens file needs at least one record");
  const rows = records.map((r) => tokenRecordSchema.parse(r));
  const column = <K extends keyof TokenRecord>(name: K) => ({ name, data: rows.map((r) => r[name]) });
  const buffer = parquetWriteBuffer({
    schema: [...TOKENS_PARQUET_SCHEMA],
    columnData: [
      ...(
        [
          "id",
          "unit",
          "run_id",
          "question_id",
          "group_id",
          "group_index",
          "strategy",
          "scope",
          "role",
          "tool_call_id",
          "segment",
          "segment_start",
          "segment_break",
          "call_ids",
          "turns",
          "prompt_ids",
          "response_ids",
          "response_mask",
          "loss_mask",
          "response_logprobs",
        ] as const
      ).map(column),
      {
        name: "completion_spans",
        data: rows.map((r) => r.completion_spans.map(([start, end]) => ({ start, end }))),
      },
      ...(
        [
          "token_source",
          "constrained_call_ids",
          "rejected_call_ids",
          "relabelled_call_ids",
          "format_errors",
          "finish_reason",
          "policy",
          "policy_version",
        ] as const
      ).map(column),
      {
        name: "sampling",
        data: rows.map((r) => ({
          temperature: r.sampling.temperature ?? null,
          top_p: r.sampling.topP ?? null,
          max_output_tokens: r.sampling.maxOutputTokens ?? null,
          seed: r.sampling.seed === undefined ? null : BigInt(r.sampling.seed),
        })),
      },
      column("status"),
      column("reward"),
      {
        name: "reward_components",
        data: rows.map((r) => (r.reward_components ? JSON.stringify(r.reward_components) : null)),
      },
      column("advantage"),
    ],
    createdBy: "dossier",
  });
  return new Uint8Array(buffer);
}
