/**
 * The WARP policy as run.ts drives it: the four model actions (SEARCH, INITIALIZE, WRITE,
 * EXPAND/TERMINATE), each counted against the step cap, in one of two protocols — `json`
 * (structured output with re-asks that name the problem, any model) or `native`
 * (AgentCPM-Report's tag protocol, native/policy.ts). An action answers null when the step cap
 * was reached before it had a valid answer; it throws when it failed otherwise, and the run
 * takes its documented fallback.
 */

import { isDossierError } from "../../core/errors.ts";
import type { FlatOutlineSection } from "../../core/outline.ts";
import type { Evidence } from "../../core/source.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { DEFAULT_MAX_REPAIRS } from "../../llm/structured.ts";
import type { WarpState } from "./draft.ts";
import { type DeepenAction, decideDeepening, type InitializeAction, initializeOutline } from "./planner.ts";
import type { Counted, Sampling } from "./sampling.ts";
import { chooseKeywords, type SearchAction } from "./searcher.ts";
import type { StepMeter } from "./steps.ts";
import { type WriteAction, writeWarpSection } from "./writer.ts";

/** What the native protocol keeps of an answer in the trajectory. */
export interface Thought {
  /** What the model thought before acting. */
  thought?: string;
  /** The seed's action name where it differs (`init-plan`, `extend-plan`, `nop`). */
  native?: string;
  /** The action as the model wrote it (a WRITE's content with its `\cite{…}` keys). */
  raw?: string;
}

/** The actions of a WARP policy. */
export interface WarpPolicy {
  search(input: {
    state: WarpState;
    target?: FlatOutlineSection;
    language: string;
  }): Promise<(SearchAction & Thought) | null>;
  initialize(input: {
    question: string;
    passages: readonly Evidence[];
    language: string;
  }): Promise<(InitializeAction & Thought) | null>;
  write(input: {
    state: WarpState;
    target: FlatOutlineSection;
    passages: readonly Evidence[];
    language: string;
  }): Promise<(WriteAction & Thought) | null>;
  deepen(input: {
    state: WarpState;
    language: string;
    forced: boolean;
    expansionsLeft: number;
  }): Promise<(DeepenAction & Thought) | null>;
}

/**
 * Runs one structured action within the steps left: at most as many re-asks as steps remain,
 * every call spent (a failed action's calls too).
 */
async function counted<T>(
  steps: StepMeter,
  fn: (maxRepairs: number) => Promise<Counted<T>>,
): Promise<T | null> {
  const left = steps.left();
  if (left <= 0) return null;
  try {
    const { value, calls } = await fn(Math.min(DEFAULT_MAX_REPAIRS, left - 1));
    steps.spend(calls);
    return value;
  } catch (error) {
    const calls = isDossierError(error, "STRUCTURED_OUTPUT_FAILED")
      ? Number(error.details.calls ?? 1)
      : isDossierError(error, "BUDGET_EXCEEDED")
        ? 0
        : 1;
    steps.spend(calls);
    throw error;
  }
}

/** The JSON protocol: structured answers in the seed's action shapes, re-asked with the reason. */
export function jsonPolicy(ctx: RunContext, steps: StepMeter, sampling: Sampling): WarpPolicy {
  return {
    search: (input) =>
      counted(steps, (maxRepairs) => chooseKeywords(ctx, input, { ...sampling, maxRepairs })),
    initialize: (input) =>
      counted(steps, (maxRepairs) => initializeOutline(ctx, input, { ...sampling, maxRepairs })),
    write: (input) =>
      counted(steps, (maxRepairs) => writeWarpSection(ctx, input, { ...sampling, maxRepairs })),
    deepen: (input) =>
      counted(steps, (maxRepairs) => decideDeepening(ctx, input, { ...sampling, maxRepairs })),
  };
}
