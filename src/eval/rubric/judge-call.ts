/**
 * Judge calls for evaluators: many structured calls run concurrently under a limit, each retried
 * on unparsable output by structured-output repair, each ending as a counted outcome — a value,
 * or a failure with its error — with the number of calls and rejected answers it took.
 */

import { DossierError } from "../../core/errors.ts";
import type { LlmClient } from "../../llm/client.ts";
import { generateStructured, type StructuredRequest } from "../../llm/structured.ts";
import { runConcurrently } from "../concurrency.ts";

/** The outcome of one judge call. */
export type JudgeOutcome<T> =
  | { ok: true; value: T; calls: number; formatErrors: number }
  | { ok: false; error: { code: string; message: string }; calls: number; formatErrors: number };

/** Options of {@link judgeAll}. */
export interface JudgeAllOptions<T> {
  /** Calls in flight at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called as each call settles (progress display). */
  onSettled?: (outcome: JudgeOutcome<T>, index: number) => void;
}

/** Counts of a list of outcomes. */
export interface JudgeCounts {
  total: number;
  ok: number;
  /** Calls that ended without a usable answer. */
  failed: number;
  /** Model calls made, repairs included. */
  calls: number;
  /** Answers rejected as unparsable or invalid. */
  formatErrors: number;
}

/** Calls and rejected answers a failed structured call used (from STRUCTURED_OUTPUT_FAILED details). */
function failureStats(error: DossierError): { calls: number; formatErrors: number } {
  const errors = error.details.errors;
  const calls = error.details.calls;
  return {
    calls: typeof calls === "number" ? calls : 1,
    formatErrors: Array.isArray(errors) ? errors.length : 0,
  };
}

/**
 * Runs one structured judge call per item (`build` makes the request); resolves to one outcome
 * per item, in order. Only cancellation rejects.
 */
export async function judgeAll<I, T>(
  client: LlmClient,
  items: readonly I[],
  build: (item: I, index: number) => StructuredRequest<T>,
  options: JudgeAllOptions<T> = {},
): Promise<JudgeOutcome<T>[]> {
  const outcomes: JudgeOutcome<T>[] = new Array(items.length);
  const settled = await runConcurrently(
    items,
    async (item, index) => generateStructured(client, build(item, index)),
    {
      concurrency: options.concurrency ?? 4,
      signal: options.signal,
      onSettled: (outcome, _item, index) => {
        outcomes[index] = outcome.ok
          ? {
              ok: true,
              value: outcome.value.value,
              calls: outcome.value.calls,
              formatErrors: outcome.value.formatErrors,
            }
          : {
              ok: false,
              error: { code: outcome.error.code, message: outcome.error.message },
              ...failureStats(outcome.error),
            };
        options.onSettled?.(outcomes[index]!, index);
      },
    },
  );
  if (settled.length !== items.length) throw new DossierError("INTERNAL", "judgeAll: an outcome is missing");
  return outcomes;
}

/** Totals of a list of outcomes. */
export function countJudgeOutcomes(outcomes: readonly JudgeOutcome<unknown>[]): JudgeCounts {
  const failed = outcomes.filter((o) => !o.ok).length;
  return {
    total: outcomes.length,
    ok: outcomes.length - failed,
    failed,
    calls: outcomes.reduce((sum, o) => sum + o.calls, 0),
    formatErrors: outcomes.reduce((sum, o) => sum + o.formatErrors, 0),
  };
}
