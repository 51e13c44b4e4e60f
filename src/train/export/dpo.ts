/**
 * The `dpo` export: one preference pair per line, `{"prompt", "chosen", "rejected"}`, the
 * preference dataset TRL's DPOTrainer reads (explicit prompt). Pairs come from the curation's
 * `dpoPairs` over scored runs of the same question (MindDR §5.4): the prompt is the question,
 * the chosen and rejected completions are the two runs' final outputs as their rewards judged
 * them (the short answer, else the report).
 *
 * - `conversational` (default): `prompt` is a chat (an optional system turn, then the question
 *   as the user turn), `chosen` and `rejected` are one assistant turn each.
 * - `standard`: the three are plain strings.
 *
 * With `metadata: true` a record also names the question, both runs and both rewards
 * (`question_id`, `chosen_run_id`, `rejected_run_id`, `chosen_reward`, `rejected_reward`).
 * A pair whose runs answer different questions is refused; a pair where either run has no
 * output is skipped with its reason.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { DpoPair } from "../curation/dpo-pairs.ts";
import type { RecordedRun } from "../recorded-run.ts";
import {
  chatAssistantMessageSchema,
  chatSystemMessageSchema,
  chatUserMessageSchema,
  questionPrompt,
} from "./chat-format.ts";
import type { ExportResult, ExportSkip } from "./export-result.ts";

const metadataShape = {
  question_id: z.string().min(1).optional(),
  chosen_run_id: z.string().min(1).optional(),
  rejected_run_id: z.string().min(1).optional(),
  chosen_reward: z.number().optional(),
  rejected_reward: z.number().optional(),
};

type DpoMetadata = {
  [K in keyof typeof metadataShape]?: z.infer<(typeof metadataShape)[K]>;
};

/** A conversational preference pair. */
export const dpoConversationalRecordSchema = z.strictObject({
  prompt: z.array(z.discriminatedUnion("role", [chatSystemMessageSchema, chatUserMessageSchema])).min(1),
  chosen: z.tuple([chatAssistantMessageSchema]),
  rejected: z.tuple([chatAssistantMessageSchema]),
  ...metadataShape,
});

/** A standard (plain text) preference pair. */
export const dpoStandardRecordSchema = z.strictObject({
  prompt: z.string().min(1),
  chosen: z.string().min(1),
  rejected: z.string().min(1),
  ...metadataShape,
});

/** One line of a `dpo` file, in either form. */
export const dpoRecordSchema = z.union([dpoConversationalRecordSchema, dpoStandardRecordSchema]);
/** One line of a `dpo` file. */
export type DpoRecord = z.infer<typeof dpoRecordSchema>;

/** Options of {@link dpoRecords}. */
export interface DpoOptions {
  /** Chat turns (default) or plain strings. */
  style?: "conversational" | "standard";
  /** A system turn before the question (conversational form only). */
  systemPrompt?: string;
  /** Add the question id, run ids and rewards to each record (default false). */
  metadata?: boolean;
}

/**
 * A run's final output as its rewards judge it: its short answer, else its report, else null
 * (a short-answer run's report is only the engine's wrapper around the answer).
 */
export function runOutput(run: RecordedRun): string | null {
  if (run.answer !== null && run.answer.trim() !== "") return run.answer;
  if (run.report !== null && run.report.trim() !== "") return run.report;
  return null;
}

/** The `dpo` records of preference pairs of runs (see the module comment). */
export function dpoRecords(
  pairs: readonly DpoPair<RecordedRun>[],
  options: DpoOptions = {},
): ExportResult<DpoRecord> {
  const records: DpoRecord[] = [];
  const skipped: ExportSkip[] = [];
  for (const pair of pairs) {
    const { chosen, rejected } = pair;
    if (chosen.row.id !== rejected.row.id || chosen.row.prompt !== rejected.row.prompt)
      throw new DossierError(
        "INPUT_INVALID",
        `a DPO pair answers one question: ${chosen.runId} answers ${chosen.row.id}, ${rejected.runId} answers ${rejected.row.id}`,
      );
    const a = runOutput(chosen);
    const b = runOutput(rejected);
    if (a === null || b === null) {
      const empty = a === null ? chosen : rejected;
      skipped.push({ runId: empty.runId, reason: "the run has neither a report nor an answer" });
      continue;
    }
    const metadata: DpoMetadata = options.metadata
      ? {
          question_id: chosen.row.id,
          chosen_run_id: chosen.runId,
          rejected_run_id: rejected.runId,
          chosen_reward: pair.chosenReward,
          rejected_reward: pair.rejectedReward,
        }
      : {};
    records.push(
      options.style === "standard"
        ? { prompt: chosen.row.prompt, chosen: a, rejected: b, ...metadata }
        : {
            prompt: questionPrompt(chosen.row.prompt, options.systemPrompt),
            chosen: [{ role: "assistant", content: a }],
            rejected: [{ role: "assistant", content: b }],
            ...metadata,
          },
    );
  }
  return { records, skipped };
}
