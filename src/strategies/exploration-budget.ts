/**
 * When to stop exploring: a hard limit is reached, or the share of the token, cost or time
 * budget set aside for exploration is spent — the rest is kept for writing the report.
 */

import type { RunContext } from "../agents/run-context.ts";

/** Default share of tokens, cost and wall time that exploration may use. */
export const DEFAULT_EXPLORATION_SHARE = 0.6;

/** Returns a function that names the budget limit that ends exploration, or null to go on. */
export function explorationGuard(
  ctx: Pick<RunContext, "budget">,
  share = DEFAULT_EXPLORATION_SHARE,
): () => string | null {
  return () => {
    const hard = ctx.budget.exhausted();
    if (hard) return `budget:${hard}`;
    const { limits, used } = ctx.budget.snapshot();
    if (limits.maxTokens !== undefined && used.tokens >= share * limits.maxTokens) return "budget:tokens";
    if (limits.maxCostUsd !== undefined && used.costUsd >= share * limits.maxCostUsd) return "budget:cost";
    if (limits.maxWallMs !== undefined && used.wallMs >= share * limits.maxWallMs) return "budget:wallTime";
    return null;
  };
}
