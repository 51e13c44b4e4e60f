/**
 * When to stop exploring: a hard limit is reached, or the share of the token, cost or time
 * budget set aside for exploration is spent — the rest is kept for writing the report.
 */

import { exceededLimit } from "../core/budget.ts";
import type { RunContext } from "./run-context.ts";

/** Default share of tokens, cost and wall time that exploration may use. */
export const DEFAULT_EXPLORATION_SHARE = 0.6;

/** Options of {@link explorationGuard}. */
export interface ExplorationGuardOptions {
  /**
   * The iteration limit counts the strategy's outer loop only (graph's planner cycles), which
   * checks it itself: agents inside the last iteration may finish their work.
   */
  outerLoopIterations?: boolean;
}

/** Returns a function that names the budget limit that ends exploration, or null to go on. */
export function explorationGuard(
  ctx: Pick<RunContext, "budget">,
  share = DEFAULT_EXPLORATION_SHARE,
  options: ExplorationGuardOptions = {},
): () => string | null {
  return () => {
    // "iterations" is the last limit exhausted() names: when it is named, no other one is reached.
    const hard = ctx.budget.exhausted();
    if (hard && !(hard === "iterations" && options.outerLoopIterations)) return `budget:${hard}`;
    const { limits, used } = ctx.budget.snapshot();
    if (limits.maxTokens !== undefined && used.tokens >= share * limits.maxTokens) return "budget:tokens";
    if (limits.maxCostUsd !== undefined && used.costUsd >= share * limits.maxCostUsd) return "budget:cost";
    if (limits.maxWallMs !== undefined && used.wallMs >= share * limits.maxWallMs) return "budget:wallTime";
    return null;
  };
}

/** Counts one more iteration of a strategy's loop; the budget limit it reaches (`budget:<limit>`), or null. */
export function startIteration(ctx: Pick<RunContext, "budget">): string | null {
  try {
    ctx.budget.startIteration();
    return null;
  } catch (error) {
    const limit = exceededLimit(error);
    if (!limit) throw error;
    return `budget:${limit}`;
  }
}
