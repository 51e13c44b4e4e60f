/**
 * The dry estimate of a research run (`--estimate`): expected model calls, tool calls, tokens
 * and cost as a low–high range, from the strategy's structure and the price table. Nothing is
 * called. The figures are rough by nature; budgets cap the high end.
 */

import type { BudgetLimits } from "../core/budget.ts";
import type { VerifyMode } from "../core/claim-verdicts.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import type { Range, StrategyDefinition } from "../strategies/types.ts";
import { verifyEstimate } from "./claim-verify.ts";

export type { Range } from "../strategies/types.ts";

/** The estimate. */
export interface ResearchEstimate {
  strategy: string;
  llmCalls: Range;
  toolCalls: Range;
  tokens: Range;
  /** Null when a model's price is unknown. */
  costUsd: Range | null;
  /** Models without a known price. */
  unpriced: string[];
  /** Limits that cap the high end. */
  cappedBy: string[];
}

/** Estimates a run. */
export function estimateResearch(options: {
  strategy: StrategyDefinition<unknown>;
  /** The strategy's options, already validated. */
  strategyOptions?: unknown;
  registry: ModelRegistry;
  budget: BudgetLimits;
  webReading: boolean;
  /** Claim verification (its judge and rewrite calls count; default check, no call). */
  verify?: VerifyMode;
}): ResearchEstimate {
  const { llm, tools } = options.strategy.estimate({
    options: options.strategyOptions ?? {},
    webReading: options.webReading,
  });
  const unpriced = new Set<string>();
  let calls: Range = [0, 0];
  let tokens: Range = [0, 0];
  let cost: Range = [0, 0];
  for (const kind of [...llm, ...verifyEstimate(options.verify ?? "check")]) {
    const model = options.registry.forRole(kind.role);
    calls = [calls[0] + kind.count[0], calls[1] + kind.count[1]];
    const per = kind.input + kind.output;
    tokens = [tokens[0] + kind.count[0] * per * 0.6, tokens[1] + kind.count[1] * per * 1.3];
    if (!model.price) unpriced.add(model.name);
    else {
      const c = (kind.input * model.price.inputPerMTok + kind.output * model.price.outputPerMTok) / 1e6;
      cost = [cost[0] + kind.count[0] * c * 0.6, cost[1] + kind.count[1] * c * 1.3];
    }
  }
  const cappedBy: string[] = [];
  let toolCalls = tools;
  const b = options.budget;
  if (b.maxToolCalls !== undefined && b.maxToolCalls < toolCalls[1]) {
    toolCalls = [Math.min(toolCalls[0], b.maxToolCalls), b.maxToolCalls];
    cappedBy.push("max tool calls");
  }
  if (b.maxTokens !== undefined && b.maxTokens < tokens[1]) {
    tokens = [Math.min(tokens[0], b.maxTokens), b.maxTokens];
    cappedBy.push("max tokens");
  }
  if (b.maxCostUsd !== undefined && b.maxCostUsd < cost[1]) {
    cost = [Math.min(cost[0], b.maxCostUsd), b.maxCostUsd];
    cappedBy.push("max cost");
  }
  return {
    strategy: options.strategy.name,
    llmCalls: calls,
    toolCalls,
    tokens: [Math.round(tokens[0]), Math.round(tokens[1])],
    costUsd: unpriced.size ? null : cost,
    unpriced: [...unpriced],
    cappedBy,
  };
}

/** The estimate as text. */
export function formatEstimate(e: ResearchEstimate): string {
  const k = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
  const lines = [
    `Estimate for ${e.strategy} (nothing was run):`,
    `  model calls   ${e.llmCalls[0]} – ${e.llmCalls[1]}`,
    `  tool calls    ${e.toolCalls[0]} – ${e.toolCalls[1]}`,
    `  tokens        ${k(e.tokens[0])} – ${k(e.tokens[1])}`,
    `  cost          ${e.costUsd ? `$${e.costUsd[0].toFixed(3)} – $${e.costUsd[1].toFixed(3)}` : `unknown (no price for ${e.unpriced.join(", ")}; add one under "prices" in dossier.config.json)`}`,
  ];
  if (e.cappedBy.length) lines.push(`  capped by     ${e.cappedBy.join(", ")}`);
  return `${lines.join("\n")}\n`;
}
