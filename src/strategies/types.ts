/**
 * What a research strategy is to the rest of Dossier: a {@link StrategyDefinition} in the
 * strategy registry, run with a {@link StrategyRunInput}, ending with a {@link ResearchOutcome}
 * whose `stopReason` says why exploration stopped.
 */

import type { z } from "zod";
import type { BudgetLimitName } from "../core/budget.ts";
import type { ReportDocument } from "../core/report.ts";
import type { ResearchTools } from "../kit/research-tools.ts";
import type { ClarifyCallback } from "../kit/router.ts";
import type { RunContext } from "../kit/run-context.ts";
import type { Role } from "../llm/model-spec.ts";
import type { RoleSampling } from "../llm/role-sampling.ts";

/**
 * Why a strategy stopped exploring. `completed` is a run that did its whole protocol; a
 * `budget:<limit>` run stopped at a hard limit and still wrote the best report it could.
 */
export type StopReason =
  | "completed"
  | "no-matches"
  | "frontier-empty"
  | "planner-synthesize"
  | "no-gaps"
  | "iteration-cap"
  | "step-cap"
  | "answered"
  | `budget:${BudgetLimitName}`;

/** What a research strategy returns. */
export interface ResearchOutcome {
  stopReason: StopReason | (string & {});
  report: ReportDocument;
}

/** Where a strategy may look for evidence. */
export type Sources = "web" | "local" | "both" | "local-only";

/** What the runtime hands a strategy besides its context. */
export interface StrategyRunInput<O> {
  /** The strategy's own options, already validated by its `optionsSchema`. */
  options: O;
  /** Research tools limited to the run's sources. */
  tools: ResearchTools;
  /** Language code the report is written in. */
  language: string;
  /** Asks the user clarifying questions (interactive use), when the caller offers it. */
  clarify?: ClarifyCallback;
}

/** A range `[low, high]`. */
export type Range = [low: number, high: number];

/** One kind of model call in an estimate. */
export interface EstimatedCall {
  role: Role;
  count: Range;
  /** Input tokens per call. */
  input: number;
  /** Output tokens per call. */
  output: number;
}

/** The call structure a strategy expects (for `--estimate`). */
export interface StrategyEstimate {
  llm: EstimatedCall[];
  tools: Range;
}

/** What an estimate is computed from. */
export interface EstimateInput<O> {
  options: O;
  /** True when the run may read web pages. */
  webReading: boolean;
}

/** What a strategy needs from the run. */
export interface StrategyCapabilities {
  /** Needs a language model (false only for the offline strategy). */
  needsModel: boolean;
  /** Can search the web. */
  web: boolean;
  /** Can search a local corpus. */
  local: boolean;
}

/**
 * A research strategy: everything the CLI, the library API, the server and batch runs need to
 * offer it, estimate it and run it. Register one with `StrategyRegistry.register`.
 */
export interface StrategyDefinition<O = Record<string, unknown>> {
  /** The name users choose it by (`--strategy <name>`). */
  name: string;
  /** One line for help texts and the UI. */
  description: string;
  /** Validates the strategy's own options (e.g. `maxSteps`). Unknown keys are an error. */
  optionsSchema: z.ZodType<O>;
  /** Model roles it calls; each must resolve to a model before the run starts. */
  roles: readonly Role[];
  capabilities: StrategyCapabilities;
  /** The expected call structure. */
  estimate(input: EstimateInput<O>): StrategyEstimate;
  /**
   * The sampling its paper or released code states, per role, for these options (the options'
   * own `temperature` / `topP` over it). The LLM client sends it with every call of the role
   * that does not set its own; a role left out gets the provider's defaults.
   */
  sampling?(options: O): RoleSampling;
  /**
   * True when a run with these options can stop after its plan for the user's review
   * (`reviewPlan`; core/plan-review-point.ts). A run asking for a review of a strategy without
   * one is refused before it starts.
   */
  reviewsPlan?(options: O): boolean;
  /** Runs the strategy. */
  run(ctx: RunContext, input: StrategyRunInput<O>): Promise<ResearchOutcome>;
}
