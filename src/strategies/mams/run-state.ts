/**
 * One mams run in progress: its Markov state ⟨memory, plan, report⟩ and figures, what the chunk
 * updates share with the loop (chunk-update.ts), the limits and windows the options set, the
 * search agent's system prompt, and what the loop keeps between turns — the calls made, what the
 * last turn gave, and why exploration stopped.
 */

import { explorationGuard } from "../../kit/exploration-budget.ts";
import { guardedAction } from "../../kit/guarded-action.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import type { ChunkRun } from "./chunk-update.ts";
import { emptyFigures } from "./figures.ts";
import { DEFAULT_PAGE_TOKENS } from "./page-text.ts";
import { searchSystem } from "./prompts.ts";
import {
  DEFAULT_CHUNK_TOKENS,
  DEFAULT_MAX_CALLS_PER_TURN,
  DEFAULT_MAX_TURNS,
  DEFAULT_MEMORY_TOKENS,
} from "./protocol.ts";
import type { MamsOptions } from "./run.ts";

/** A mams run in progress (see the module comment). */
export interface MamsRun extends ChunkRun {
  readonly tools: ResearchTools;
  /** Tool-calling turns at most. */
  readonly maxTurns: number;
  /** Tool calls per turn at most. */
  readonly maxCalls: number;
  /** Results per search. */
  readonly topK: number;
  /** Estimated tokens of a page's text that are chunked. */
  readonly maxPageTokens: number;
  /** The size of an observation chunk, in the unit `chunkSize` measures. */
  readonly chunkWindow: number;
  readonly chunkSize: (text: string) => number;
  /** The exploration share: a budget limit once it is reached. */
  readonly guard: () => string | null;
  /** The search agent's system prompt. */
  readonly system: string;
  /** Calls made (described, lower case) and pages read (`read_page <url>`): none is made again. */
  readonly made: Set<string>;
  /** What the last turn's calls gave, as the search agent is told. */
  lastTurn: string[];
  /** Evidence ids the last turn's calls returned (what the next search step saw, in chunks). */
  lastObserved: string[];
  /** Why exploration stopped (the first reason given), or null while it goes on. */
  stopReason: string | null;
}

/** A run that has not started: the empty state, the options' limits and windows. */
export function startMamsRun(ctx: RunContext, options: MamsOptions): MamsRun {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const maxCalls = options.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN;
  const { tools } = options;
  let step = 0;
  const run: MamsRun = {
    ctx,
    tools,
    language: options.language,
    maxTurns,
    maxCalls,
    topK: options.topK ?? 5,
    maxPageTokens: options.maxPageTokens ?? DEFAULT_PAGE_TOKENS,
    chunkWindow: options.chunkChars ?? options.chunkTokens ?? DEFAULT_CHUNK_TOKENS,
    chunkSize: options.chunkChars ? (t: string) => t.length : estimateTokens,
    memoryBudget: options.memoryTokens ?? DEFAULT_MEMORY_TOKENS,
    guard: explorationGuard(ctx, options.explorationShare ?? 0.9),
    state: { memory: [], plan: "", report: "" },
    figures: emptyFigures(),
    shown: new Set<string>(),
    made: new Set<string>(),
    lastTurn: [],
    lastObserved: [],
    stopReason: null,
    /** One model action; a budget limit stops exploration (null), cancellation rethrows. */
    act: guardedAction(ctx, (reason) => stopRun(run, reason)),
    record: (action, before, answer) =>
      ctx.emit({ type: "trajectory-step", step: ++step, action, state: before, answer }),
    system: searchSystem({
      tools: tools.available,
      currentDate: ctx.currentDate,
      maxTurns,
      maxCallsPerTurn: maxCalls,
    }),
  };
  return run;
}

/** Stops exploration; the first reason given stands. */
export function stopRun(run: MamsRun, reason: string): void {
  run.stopReason ??= reason;
}
