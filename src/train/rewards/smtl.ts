/**
 * `smtl`: the outcome reward of SMTL's RL stage (§5.2): an LLM judge decides whether the final
 * answer is correct, 1 if so and 0 otherwise; "if a tool call violates the required format,
 * generation is immediately terminated and a reward of 0 is assigned".
 *
 * Dossier's smtl agent writes its tool calls inside structured answers, so a tool call that
 * breaks the format shows as a format error on the model call that wrote it (Dossier repairs it
 * and goes on; the paper would have stopped). The run scores 0 — without asking the judge —
 * when any of its model calls raised a format error or any tool call was refused as malformed
 * (`INPUT_INVALID`), and when it gave no answer. The judged response is the run's short
 * answer, else its report. The row's reference answer is required.
 */

import { DossierError } from "../../core/errors.ts";
import type { RecordedRun } from "../recorded-run.ts";
import type { AnswerJudge, BinaryVerdict } from "./answer-judge.ts";

/** Dependencies of {@link smtlReward}. */
export interface SmtlDeps {
  judge: AnswerJudge;
}

/** Options of {@link smtlReward}. */
export interface SmtlOptions {
  /** Keeps only these scopes' calls for the format check. Default every call. */
  scope?: (scope: string) => boolean;
}

/** The reward of one run. */
export interface SmtlReward {
  reward: 0 | 1;
  components: {
    /** The judge's verdict (1 / 0), or null when it was not asked. */
    correct: 0 | 1 | null;
    /** 1 when no tool call broke the format. */
    formatValid: 0 | 1;
  };
  /** What broke the format (`L3: not JSON`, `T2: INPUT_INVALID`). */
  formatBreaks: string[];
  verdict: BinaryVerdict | null;
}

/** The `smtl` reward of a run (see the module comment). */
export async function smtlReward(
  run: RecordedRun,
  deps: SmtlDeps,
  options: SmtlOptions = {},
): Promise<SmtlReward> {
  const reference = run.row.answer;
  if (reference === undefined)
    throw new DossierError(
      "INPUT_INVALID",
      `row ${run.row.id}: the smtl reward needs the row's reference answer`,
    );
  const inScope = (scope: string | undefined) => !options.scope || options.scope(scope ?? "");
  const formatBreaks = [
    ...run.calls
      .filter((c) => inScope(c.scope) && c.formatErrors.length > 0)
      .map((c) => `${c.callId}: ${c.formatErrors[0]}`),
    ...run.toolCalls
      .filter((t) => inScope(t.scope) && t.error?.code === "INPUT_INVALID")
      .map((t) => `${t.callId}: INPUT_INVALID`),
  ];
  const formatValid = formatBreaks.length === 0 ? 1 : 0;
  const response = run.answer ?? run.report ?? "";
  if (!formatValid || response.trim() === "")
    return { reward: 0, components: { correct: null, formatValid }, formatBreaks, verdict: null };
  const verdict = await deps.judge({ question: run.row.prompt, reference, response });
  const correct = verdict.correct ? 1 : 0;
  return { reward: correct, components: { correct, formatValid }, formatBreaks, verdict };
}
