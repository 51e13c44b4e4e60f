/**
 * SMTL's trajectory curation (§5.1): among a task's candidate trajectories, keep only those
 *
 * 1. format-valid — no model call of the trajectory raised a format error;
 * 2. within the context length cap — 64K tokens (64 × 1024 = 65,536);
 * 3. active enough — on average at least 3 tool calls per step (the "interaction efficiency
 *    constraint"; `minToolCallsPerStep: null` turns it off);
 * 4. correct (the caller's verdict, e.g. the `smtl` reward);
 *
 * and of those, per task, only the shortest in interaction length (fewest steps; ties go to
 * fewer tokens, then to the lower run id).
 *
 * Our reading of "trajectory length": the longest context the trajectory reached, i.e. the
 * largest input + output tokens of one of its model calls (each call's input holds the turns
 * before it); a call whose usage is unknown is estimated from its messages and completion.
 */

import { estimatePromptTokens, estimateTokens } from "../../llm/token-estimate.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { runSteps } from "../run-steps.ts";

/** The context length cap (64K tokens). */
export const SMTL_MAX_TOKENS = 64 * 1024;
/** The interaction efficiency constraint: average tool calls per step. */
export const SMTL_MIN_TOOL_CALLS_PER_STEP = 3;

/** The longest context of a trajectory, in tokens (see the module comment). */
export function trajectoryTokens(run: Pick<RecordedRun, "calls">): number {
  let most = 0;
  for (const call of run.calls) {
    const { inputTokens, outputTokens } = call.usage;
    const input = inputTokens ?? estimatePromptTokens(call.messages.map((m) => m.content));
    const output = outputTokens ?? estimateTokens(call.completion);
    most = Math.max(most, input + output);
  }
  return most;
}

/** A candidate trajectory and whether its answer was judged correct. */
export interface SmtlCandidate {
  run: RecordedRun;
  correct: boolean;
}

/** Why a candidate was not kept. */
export type SmtlRejection = "format" | "too-long" | "few-tool-calls" | "incorrect" | "not-shortest";

/** Options of {@link curateSmtl}. */
export interface SmtlCurationOptions {
  maxTokens?: number;
  /** null: no interaction efficiency constraint. */
  minToolCallsPerStep?: number | null;
}

/** The curation's outcome. */
export interface SmtlCuration {
  /** At most one run per task, in the order tasks first appear. */
  kept: RecordedRun[];
  rejected: { runId: string; task: string; reason: SmtlRejection }[];
}

interface Measured {
  run: RecordedRun;
  steps: number;
  tokens: number;
}

/** Applies SMTL's filters (see the module comment). */
export function curateSmtl(
  candidates: readonly SmtlCandidate[],
  options: SmtlCurationOptions = {},
): SmtlCuration {
  const maxTokens = options.maxTokens ?? SMTL_MAX_TOKENS;
  const minCalls =
    options.minToolCallsPerStep === undefined ? SMTL_MIN_TOOL_CALLS_PER_STEP : options.minToolCallsPerStep;
  const rejected: SmtlCuration["rejected"] = [];
  const passing = new Map<string, Measured[]>();
  for (const { run, correct } of candidates) {
    const task = run.row.id;
    passing.set(task, passing.get(task) ?? []);
    const steps = runSteps(run).length;
    const tokens = trajectoryTokens(run);
    let reason: SmtlRejection | null = null;
    if (run.calls.some((c) => c.formatErrors.length > 0)) reason = "format";
    else if (tokens > maxTokens) reason = "too-long";
    else if (minCalls !== null && (steps === 0 || agentToolCalls(run) / steps < minCalls))
      reason = "few-tool-calls";
    else if (!correct) reason = "incorrect";
    if (reason) rejected.push({ runId: run.runId, task, reason });
    else passing.get(task)!.push({ run, steps, tokens });
  }
  const kept: RecordedRun[] = [];
  for (const [task, runs] of passing) {
    const sorted = [...runs].sort(
      (a, b) =>
        a.steps - b.steps ||
        a.tokens - b.tokens ||
        (a.run.runId < b.run.runId ? -1 : a.run.runId > b.run.runId ? 1 : 0),
    );
    const [best, ...rest] = sorted;
    if (best) kept.push(best.run);
    for (const m of rest) rejected.push({ runId: m.run.runId, task, reason: "not-shortest" });
  }
  return { kept, rejected };
}

/** The agent's own tool calls (not a fetch made inside a crawl). */
function agentToolCalls(run: RecordedRun): number {
  return run.toolCalls.filter((t) => !t.parentCallId).length;
}
