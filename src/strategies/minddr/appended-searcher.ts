/**
 * The appended DeepSearch agent (minddr, `deepSearch: "appended"`; the paper's, the default of
 * the native protocol): a ReAct agent whose prompt is its trajectory — every step's thought,
 * actions and observations appended in order (MindDR §4.4, §5.2) — so the model chooses its
 * first step too (no seed queries). The trajectory is windowed at the searcher model's context
 * window, at most the 128K tokens the paper trains to (§5.1): when it would not fit, the oldest
 * observations are abbreviated, then dropped (see `trajectory.ts`); the task never is. Each step
 * also shows the team's shared memory as it stood (after the trajectory, so the trajectory stays
 * a stable prefix). At most 30 model steps by default, the longest trajectory the paper trains
 * on; the loop itself is `search-agent.ts`.
 */

import type { RunContext } from "../../kit/run-context.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import type { Subtask } from "./planner.ts";
import {
  type DeepSearchOptions,
  type DeepSearchResult,
  runSearchAgent,
  type TrajectoryStep,
} from "./search-agent.ts";
import { APPENDED_MAX_STEPS } from "./settings.ts";
import { searcherSystem, teamBlock, teamView } from "./step.ts";
import { windowTrajectory } from "./trajectory.ts";

/** The longest context the paper trains its agents to (128K tokens, §4.4, §5.1). */
export const PAPER_CONTEXT_TOKENS = 131_072;
/** Output tokens of one appended step. */
export const APPENDED_STEP_OUTPUT_TOKENS = 1500;
/** Tokens kept for what the structured call adds to the prompt (the answer's schema). */
export const SCHEMA_ALLOWANCE = 800;

/** Options of {@link appendedSearch}. */
export interface AppendedSearchOptions extends DeepSearchOptions {
  /** The searcher model's context window in tokens (default: the model's known window, else 128K). */
  contextWindow?: number;
}

/** The context an appended agent's prompt must fit: the given or known window, at most 128K. */
export function appendedContextTokens(ctx: Pick<RunContext, "llm">, contextWindow?: number): number {
  return Math.min(contextWindow ?? knownWindow(ctx) ?? PAPER_CONTEXT_TOKENS, PAPER_CONTEXT_TOKENS);
}

function knownWindow(ctx: Pick<RunContext, "llm">): number | null {
  try {
    return ctx.llm.resolve("searcher").contextWindow ?? null;
  } catch {
    return null;
  }
}

/** Runs one appended DeepSearch agent. Never throws except on cancellation. */
export function appendedSearch(ctx: RunContext, options: AppendedSearchOptions): Promise<DeepSearchResult> {
  const { subtask, xot } = options;
  const context = appendedContextTokens(ctx, options.contextWindow);
  const fixed = estimateTokens(searcherSystem(ctx)) + APPENDED_STEP_OUTPUT_TOKENS + SCHEMA_ALLOWANCE;
  return runSearchAgent(ctx, options, {
    defaultMaxSteps: APPENDED_MAX_STEPS,
    maxOutputTokens: APPENDED_STEP_OUTPUT_TOKENS,
    prompt: ({ trajectory, step, evidenceCount, agent }) => {
      const team = teamView(ctx, xot, agent, step);
      const frame = appendedPrompt(ctx, subtask, { trajectory: "", team, evidenceCount, steps: trajectory });
      const room = Math.max(0, context - fixed - estimateTokens(frame));
      const windowed = windowTrajectory(trajectory, room).text;
      return appendedPrompt(ctx, subtask, { trajectory: windowed, team, evidenceCount, steps: trajectory });
    },
  });
}

/** The step prompt: the task, the trajectory in order, the team's memory, the evidence count. */
export function appendedPrompt(
  ctx: Pick<RunContext, "query">,
  subtask: Subtask,
  input: { trajectory: string; team: string; evidenceCount: number; steps?: readonly TrajectoryStep[] },
): string {
  const none = (input.steps?.length ?? 0) === 0;
  return [
    `Overall question: ${ctx.query}`,
    `Your subtask: ${subtask.title} — ${subtask.goal}`,
    "",
    none
      ? "You have taken no step yet: choose your first actions."
      : "Your trajectory so far, every step in order (oldest first):",
    ...(none ? [] : [`<trajectory>\n${input.trajectory}\n</trajectory>`]),
    "",
    ...teamBlock(input.team),
    `Evidence collected so far: ${input.evidenceCount} item(s).`,
    "Decide the next step.",
  ].join("\n");
}
