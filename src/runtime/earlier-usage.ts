/**
 * What the earlier attempts of a resumed run paid for, read from its event log: every model call
 * that was answered (its llm-end, not a replay), every failed request the provider received (the
 * `request` of an llm-retry, or of the llm-end of a failed call: a 429 or 500 answer, a time
 * limit), and every call that was in flight when its
 * attempt ended (an llm-start with no llm-end in that attempt: a crash, a kill, a lost lease),
 * counted as lost at what it may have cost — its estimated input, its whole output cap, priced
 * when the model's price is known. A resumed or taken-over run reports and budgets the whole
 * history: answers its journal holds are counted when they are replayed (or at the run's end
 * when they are not), and the rest — lost calls and answers the journal lacks — from the start.
 */

import type { DossierEvent } from "../core/events.ts";
import {
  addCallUsage,
  type CallUsage,
  costOf,
  emptyUsage,
  type ModelPrice,
  type UsageTotals,
} from "../core/usage.ts";

/** A call of an earlier attempt that was in flight when its attempt ended. */
export interface LostCall {
  role: string;
  /** `provider:model`. */
  model: string;
  estimatedInputTokens: number;
  /** Its output cap; absent in logs written before the cap was recorded. */
  maxOutputTokens?: number;
}

/** The model calls earlier attempts paid for, as a resume hands them to the run. */
export interface EarlierCalls {
  /**
   * Calls the journal will not replay: answered calls whose answers it does not hold, and failed
   * requests the provider received (each one call).
   */
  unjournaled: CallUsage[];
  /** Answered calls whose answers the journal holds, by journal key. */
  journaled: Record<string, CallUsage>;
  /** Calls in flight when an attempt ended. */
  lost: LostCall[];
}

type LlmStart = Extract<DossierEvent, { type: "llm-start" }>;

/** The model calls the earlier attempts in `events` paid for; `journaled` are the journal's keys. */
export function earlierCalls(events: readonly DossierEvent[], journaled: ReadonlySet<string>): EarlierCalls {
  const result: EarlierCalls = { unjournaled: [], journaled: {}, lost: [] };
  let open = new Map<string, LlmStart>();
  const endAttempt = () => {
    for (const start of open.values()) {
      const maxOutputTokens = (start as { maxOutputTokens?: number }).maxOutputTokens;
      result.lost.push({
        role: start.role,
        model: start.model,
        estimatedInputTokens: start.estimatedInputTokens,
        ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      });
    }
    open = new Map();
  };
  for (const event of events) {
    if (event.type === "run-start" || event.type === "run-resume") endAttempt();
    else if (event.type === "llm-start") open.set(event.callId, event);
    else if (event.type === "llm-retry") {
      if (event.request) result.unjournaled.push(event.request);
    } else if (event.type === "llm-end") {
      open.delete(event.callId);
      if (!event.ok && event.request) result.unjournaled.push(event.request);
      if (!event.ok || event.replayed) continue;
      const usage = {
        inputTokens: event.inputTokens,
        outputTokens: event.outputTokens,
        costUsd: event.costUsd,
      };
      // The journal holds one answer per key: a second live answer of a key was paid again.
      if (journaled.has(event.key) && !(event.key in result.journaled)) result.journaled[event.key] = usage;
      else result.unjournaled.push(usage);
    }
  }
  endAttempt();
  return result;
}

/** What a lost call may have cost: its estimated input and whole output cap, at `price`. */
export function lostCallUsage(call: LostCall, price: ModelPrice | null): CallUsage {
  const inputTokens = Math.max(0, Math.ceil(call.estimatedInputTokens));
  const outputTokens = call.maxOutputTokens ?? null;
  return { inputTokens, outputTokens, costUsd: costOf({ inputTokens, outputTokens }, price) };
}

/** The totals of `calls`, each counted as one model call. */
export function usageOfCalls(calls: readonly CallUsage[]): UsageTotals {
  return calls.reduce(addCallUsage, emptyUsage());
}
