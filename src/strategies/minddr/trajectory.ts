/**
 * The appended trajectory of a minddr DeepSearch agent (MindDR §4.4, §5.2: a trajectory is the
 * sequence of steps (thought, action, observation), appended to the context in order until the
 * agent answers), rendered for the next step's prompt and windowed at the context: when the
 * whole trajectory would not fit its token budget, the oldest observations are abbreviated
 * first (their result lines and evidence ids kept, the excerpts left out), oldest first, then —
 * if that is still too much — dropped, oldest first, to a line naming the evidence ids they
 * recorded. Thoughts and actions always stay, and so does the task (it is not part of the
 * trajectory).
 */

import { renderObservations, renderObservationsBrief } from "../../kit/observation.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import type { TrajectoryStep } from "./search-agent.ts";

/** How much of a step's observation the prompt shows. */
export type ObservationLevel = "full" | "brief" | "omitted";

/** Longest excerpt shown of an observation kept in full (characters): the excerpt as recorded. */
export const FULL_EXCERPT_CHARS = 4000;

/** The trajectory as the prompt shows it, and how much of each step's observation it kept. */
export interface WindowedTrajectory {
  text: string;
  levels: ObservationLevel[];
}

/** One step as the prompt shows it, its observation at `level`. */
export function renderStep(step: TrajectoryStep, index: number, level: ObservationLevel): string {
  const actions = step.observations.map((o) => o.action).join("; ");
  const head = `Step ${index + 1}\nThought: ${step.thought}\nActions: ${actions}`;
  if (level === "omitted") {
    const ids = step.observations.flatMap((o) => o.evidence.map((e) => e.id));
    const recorded = ids.length ? `; it recorded ${ids.join(", ")}` : "";
    return `${head}\nObservation: (left out to fit the context window${recorded})`;
  }
  const body =
    level === "full"
      ? renderObservations(step.observations, FULL_EXCERPT_CHARS)
      : `(abbreviated to fit the context window: excerpts left out)\n${renderObservationsBrief(step.observations)}`;
  return `${head}\nObservation:\n<observations>\n${body}\n</observations>`;
}

/**
 * The whole trajectory in order within `maxTokens` (estimated): every observation in full when
 * it fits; else the oldest observations abbreviated, then dropped, one at a time, oldest first,
 * until it fits (or nothing is left to cut).
 */
export function windowTrajectory(steps: readonly TrajectoryStep[], maxTokens: number): WindowedTrajectory {
  const levels: ObservationLevel[] = steps.map(() => "full");
  const cache = new Map<string, { text: string; tokens: number }>();
  const rendered = (i: number) => {
    const key = `${i}:${levels[i]}`;
    let hit = cache.get(key);
    if (!hit) {
      const text = renderStep(steps[i]!, i, levels[i]!);
      hit = { text, tokens: estimateTokens(text) + 1 };
      cache.set(key, hit);
    }
    return hit;
  };
  const total = () => steps.reduce((sum, _, i) => sum + rendered(i).tokens, 0);
  let size = total();
  for (const level of ["brief", "omitted"] as const) {
    for (let i = 0; i < steps.length && size > maxTokens; i++) {
      levels[i] = level;
      size = total();
    }
  }
  return { text: steps.map((_, i) => rendered(i).text).join("\n\n"), levels };
}
