/**
 * Asking a deep-search question: a research run with the `smtl` strategy (by default) in its
 * short-answer mode (`mode: "answer"` unless the options name a mode; the strategy's own default
 * is the deep-research report) whose short answer, citations, supporting passages and figures
 * are read from its `answer-ready` event and stored report. Used by `Dossier.ask`, the one-call
 * `ask()`, `dossier ask` and the deep-search evaluation.
 */

import type { EventOf } from "../core/events.ts";
import type { ReportDocument } from "../core/report.ts";
import type { RunStatus } from "../core/run.ts";
import { type AskCitation, type AskEvidence, citedPassages } from "../strategies/smtl/cited-passages.ts";
import type { ResearchHandle, ResearchOptions, ResearchResult } from "./research-handle.ts";

export type { AskCitation, AskEvidence } from "../strategies/smtl/cited-passages.ts";

/** Options of an ask: a research run's options; the strategy defaults to `smtl`. */
export interface AskOptions extends ResearchOptions {
  /** Tool-calling steps at most (smtl; default 100). Same as `strategyOptions.maxSteps`. */
  steps?: number;
  /**
   * A finished run this question follows up on: answered from its evidence first, cited with its
   * report's numbers (see `askAbout`); the result is then a `FollowUpResult`.
   */
  about?: string;
  /** With `about`: searches at most when the run's evidence does not suffice (0–5, default 2). */
  maxSearches?: number;
}

/** The answer to a question, with its evidence and the run's figures. */
export interface AskResult {
  runId: string;
  status: RunStatus;
  /** The concise answer with numbered citations; "" when the run gave none. */
  answer: string;
  /** True when every goal of the agent's plan was verified by retrieved evidence. */
  verified: boolean;
  citations: AskCitation[];
  /** The passages behind the citations, each retrieved in this run. */
  evidence: AskEvidence[];
  steps: number;
  toolCalls: number;
  toolCallsPerStep: number | null;
  tokens: { input: number | null; output: number | null };
  wallMs: number | null;
  stopReason: string;
  /** The underlying research result (report, files, record, usage, error). */
  research: ResearchResult;
}

/** Runs an ask through `research` (a Dossier's) and resolves with the answer. */
export async function askWith(
  research: (question: string, options: ResearchOptions) => ResearchHandle,
  question: string,
  options: AskOptions = {},
): Promise<AskResult> {
  const {
    onEvent,
    steps,
    strategy = "smtl",
    strategyOptions,
    about: _about,
    maxSearches: _max,
    ...rest
  } = options;
  let ready: EventOf<"answer-ready"> | undefined;
  const answerMode = strategy === "smtl" && strategyOptions?.mode === undefined ? { mode: "answer" } : {};
  const merged = {
    ...answerMode,
    ...strategyOptions,
    ...(steps === undefined ? {} : { maxSteps: steps }),
  };
  const handle = research(question, {
    ...rest,
    strategy,
    ...(Object.keys(merged).length ? { strategyOptions: merged } : {}),
    onEvent: (event) => {
      if (event.type === "answer-ready") ready = event;
      onEvent?.(event);
    },
  });
  const result = await handle.done;
  return askResultOf(result, ready);
}

/** The ask result of a finished research run and its `answer-ready` event (if any). */
export function askResultOf(result: ResearchResult, ready: EventOf<"answer-ready"> | undefined): AskResult {
  const { record } = result;
  const citations = (ready?.citations ?? []) as AskCitation[];
  const u = record.usage;
  return {
    runId: result.runId,
    status: result.status,
    answer: ready?.answer ?? "",
    verified: ready?.verified ?? false,
    citations,
    evidence: passages(result.report, citations),
    steps: ready?.steps ?? 0,
    toolCalls: ready?.toolCalls ?? u?.toolCalls ?? 0,
    toolCallsPerStep: ready?.toolCallsPerStep ?? null,
    tokens: { input: u?.inputTokens ?? null, output: u?.outputTokens ?? null },
    wallMs: record.finishedAt ? Date.parse(record.finishedAt) - Date.parse(record.createdAt) : null,
    stopReason: result.stopReason,
    research: result,
  };
}

function passages(report: ReportDocument | null, citations: readonly AskCitation[]): AskEvidence[] {
  if (!report) return [];
  const evidence = new Map(report.evidence.map((e) => [e.id, e]));
  const sources = new Map(report.sources.map((s) => [s.id, s]));
  return citedPassages(
    citations,
    (id) => evidence.get(id),
    (id) => sources.get(id),
  );
}
