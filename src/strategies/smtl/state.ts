/**
 * The state of one smtl run, shared by its loop (run.ts) and its protocols (json-answer.ts,
 * json-research.ts, tags.ts): the options as resolved, the windows, the conversation, the tool
 * steps, the plan (goals or subtasks), the figures, why the loop stopped, and the trajectory it
 * records. Nothing here knows a wire format.
 */

import { explorationGuard } from "../../kit/exploration-budget.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { SmtlFigures } from "./answer.ts";
import { SmtlConversation } from "./conversation.ts";
import type { AnswerReply, SmtlPlan } from "./protocol.ts";
import type { Subtask } from "./research-protocol.ts";
import { SmtlSteps } from "./steps.ts";
import { type SmtlWindows, smtlWindows } from "./windows.ts";

/** Options of an smtl run (the strategy's options, defaults filled in by {@link SmtlState}). */
export interface SmtlOptions {
  tools: ResearchTools;
  /** Language code of the answer or report. */
  language: string;
  /** Steps at most (tool-calling steps in JSON, replies in the tag protocol). Default 100. */
  maxSteps?: number;
  /** Steps between plan refinements. Default 5. */
  refineEvery?: number;
  /** Malformed replies tolerated before the run answers from what it has. Default 10. */
  errorBudget?: number;
  /** Estimated tokens of the conversation that force a refinement and a reset (windows.ts). */
  contextTokens?: number;
  /** The models' context window in tokens, when the model table does not know it. */
  contextWindow?: number;
  /** Results per search. Default 5. */
  topK?: number;
  /** Sampling of the agent's calls, when the user sets it. */
  temperature?: number;
  topP?: number;
  /** Share of the token, cost and time budget the loop may use before answering. Default 0.9. */
  explorationShare?: number;
  /** The agent's system prompt in the native protocol, when the user supplied a checkpoint's own. */
  systemPrompt?: string;
}

/** Figures of a deep-research run in the JSON protocol (in the `decision` event that ends the loop). */
export interface SmtlResearchFigures {
  subtasks: number;
  answered: number;
  steps: number;
  toolCalls: number;
  callsByStep: number[];
  modelTurns: number;
  /** Plan refinements made (periodic and forced before a reset). */
  refinements: number;
  contextResets: number;
  malformedActions: number;
  contextTokens: number;
  pageTokens: number;
}

/** The figures every loop keeps; each protocol and mode reports its own set (answer.ts, above). */
export type LoopFigures = SmtlFigures | SmtlResearchFigures;

/** The figures of the short-answer loop and of the tag protocol. */
export function answerFigures(windows: SmtlWindows): SmtlFigures {
  return {
    steps: 0,
    toolCalls: 0,
    toolCallsPerStep: null,
    callsByStep: [],
    modelTurns: 0,
    refinements: 0,
    contextResets: 0,
    malformedActions: 0,
    contextTokens: windows.contextTokens,
    pageTokens: windows.pageTokens,
  };
}

/** The figures of the deep-research loop in the JSON protocol. */
export function researchFigures(windows: SmtlWindows): SmtlResearchFigures {
  return {
    subtasks: 0,
    answered: 0,
    steps: 0,
    toolCalls: 0,
    callsByStep: [],
    modelTurns: 0,
    refinements: 0,
    contextResets: 0,
    malformedActions: 0,
    contextTokens: windows.contextTokens,
    pageTokens: windows.pageTokens,
  };
}

/** The state of one run. */
export class SmtlState {
  readonly ctx: RunContext;
  readonly options: SmtlOptions;
  readonly maxSteps: number;
  readonly refineEvery: number;
  readonly errorBudget: number;
  readonly windows: SmtlWindows;
  readonly figures: LoopFigures;
  readonly steps: SmtlSteps;
  readonly talk: SmtlConversation;
  /** Stops the loop when the exploration share of the budget is spent. */
  readonly guard: () => string | null;
  /** The goals (short-answer mode, JSON). */
  plan: SmtlPlan | null = null;
  /** The subtasks and the one being worked (deep-research mode, JSON). */
  subtasks: Subtask[] | null = null;
  current = 0;
  /** The answer the loop accepted (the report, in the tag protocol's research mode). */
  answer: AnswerReply | null = null;
  /** Replies accepted into the conversation (the tag protocol's step count). */
  replies = 0;
  /** Why the loop stopped, once it did. */
  stopReason: string | null = null;
  /** Whether an answer before the first tool call was sent back, and whether it came again. */
  reasked = false;
  insisted = false;
  #trajectory = 0;

  constructor(
    ctx: RunContext,
    options: SmtlOptions,
    init: { task: string; figures: (windows: SmtlWindows) => LoopFigures },
  ) {
    this.ctx = ctx;
    this.options = options;
    this.maxSteps = options.maxSteps ?? 100;
    this.refineEvery = options.refineEvery ?? 5;
    this.errorBudget = options.errorBudget ?? 10;
    this.windows = smtlWindows(ctx, {
      contextWindow: options.contextWindow,
      contextTokens: options.contextTokens,
    });
    this.figures = init.figures(this.windows);
    const pageWindow = { maxPageTokens: this.windows.pageTokens, headShare: this.windows.headShare };
    this.steps = new SmtlSteps(
      ctx,
      { tools: options.tools, topK: options.topK ?? 5, pageWindow },
      this.figures,
    );
    this.talk = new SmtlConversation(init.task, samplingOf(options));
    this.guard = explorationGuard(ctx, options.explorationShare ?? 0.9);
  }

  /** The run's tools, as the model names them in its calls. */
  get tools() {
    return this.options.tools.available;
  }

  /** Evidence the run retrieved: the only evidence its answer may cite. */
  get retrieved(): ReadonlySet<string> {
    return this.steps.retrieved;
  }

  /** Sets the stop reason when `reason` is one; true when the loop must stop. */
  stop(reason: string | null): boolean {
    if (reason) this.stopReason = reason;
    return this.stopReason !== null;
  }

  /**
   * Records a model action as a `trajectory-step` event: what it saw (`state`) and what it
   * answered. An action that runs tools is recorded before they start, so the tool calls that
   * follow belong to it.
   */
  record(action: string, state: Record<string, unknown>, answer: unknown): void {
    this.ctx.emit({ type: "trajectory-step", step: ++this.#trajectory, action, state, answer });
  }
}

/** The sampling the user set among `options` (temperature, top-p), nothing else. */
export function samplingOf(options: { temperature?: number | undefined; topP?: number | undefined }): {
  temperature?: number;
  topP?: number;
} {
  return {
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.topP === undefined ? {} : { topP: options.topP }),
  };
}
