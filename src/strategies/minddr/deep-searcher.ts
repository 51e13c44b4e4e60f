/**
 * The compact DeepSearch agent (minddr, `deepSearch: "compact"`; Dossier's own, the default of
 * the json protocol): one per subtask, in its own context. Its first step runs the planner's
 * seed queries; every later step the model reads the shared XoT memory (the planner's rationale
 * and the other agents' findings so far) and its own trace rebuilt from state — excerpts only of
 * the last step, result lines of the two before, the actions of the rest — and decides (see
 * `search-agent.ts`). At most 12 model steps after the seed step by default.
 */

import { type Observation, renderObservations, renderObservationsBrief } from "../../kit/observation.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { SearchAction } from "../../kit/search-actions.ts";
import type { Subtask } from "./planner.ts";
import {
  type DeepSearchOptions,
  type DeepSearchResult,
  runSearchAgent,
  type TrajectoryStep,
} from "./search-agent.ts";
import { COMPACT_MAX_STEPS } from "./settings.ts";
import { MAX_ACTIONS, teamBlock, teamView } from "./step.ts";

export type { DeepSearchOptions, DeepSearchResult } from "./search-agent.ts";

/** Model-driven steps per compact agent after its seed step, when none are given. */
export const DEFAULT_MAX_STEPS = COMPACT_MAX_STEPS;

/** Runs one compact DeepSearch agent. Never throws except on cancellation. */
export function deepSearch(ctx: RunContext, options: DeepSearchOptions): Promise<DeepSearchResult> {
  const { subtask, xot } = options;
  return runSearchAgent(ctx, options, {
    defaultMaxSteps: DEFAULT_MAX_STEPS,
    seed: { thought: "Start with the planned queries.", actions: seedActions(subtask, options.tools) },
    maxOutputTokens: 1200,
    prompt: ({ trajectory, step, evidenceCount, agent }) =>
      stepPrompt(ctx, subtask, trajectory, evidenceCount, teamView(ctx, xot, agent, step)),
  });
}

function seedActions(subtask: Subtask, tools: ResearchTools): SearchAction[] {
  const actions: SearchAction[] = [];
  for (const query of subtask.queries) {
    if (tools.available.includes("web_search")) actions.push({ tool: "web_search", query });
    if (tools.available.includes("local_search")) actions.push({ tool: "local_search", query });
  }
  return actions.slice(0, MAX_ACTIONS);
}

function stepPrompt(
  ctx: RunContext,
  subtask: Subtask,
  history: readonly TrajectoryStep[],
  evidenceCount: number,
  team: string,
): string {
  // Rebuilt from state, not grown by history: excerpts only of the last step (earlier ones were
  // read then, and the findings keep what mattered), result lines of the two before, actions of the rest.
  const recent = history.slice(-3);
  const older = history.slice(0, -3);
  const actionsOf = (observations: readonly Observation[]) => observations.map((o) => o.action).join("; ");
  const trace = [
    ...older.map((h, i) => `Step ${i + 1}: ${h.thought} (${actionsOf(h.observations)})`),
    ...recent.map((h, i) => {
      const last = i === recent.length - 1;
      const body = last ? renderObservations(h.observations) : renderObservationsBrief(h.observations);
      return `Step ${older.length + i + 1}: ${h.thought}\n<observations>\n${body}\n</observations>`;
    }),
  ].join("\n\n");
  return [
    `Overall question: ${ctx.query}`,
    `Your subtask: ${subtask.title} — ${subtask.goal}`,
    "",
    ...teamBlock(team),
    "Your own steps:",
    trace,
    "",
    `Evidence collected so far: ${evidenceCount} item(s).`,
    "Decide the next step.",
  ].join("\n");
}
