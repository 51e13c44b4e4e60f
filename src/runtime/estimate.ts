/**
 * The dry estimate of a research run (`--estimate`): expected model calls, tool calls, tokens
 * and cost as a low–high range, from the strategy's structure and the price table. Nothing is
 * called. The figures are rough by nature; budgets cap the high end.
 */

import type { BudgetLimits } from "../core/budget.ts";
import type { Role } from "../llm/model-spec.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import type { StrategyName } from "./research-request.ts";

/** One kind of model call in the estimate. */
interface CallKind {
  role: Role;
  count: [number, number];
  input: number;
  output: number;
}

/** A range. */
export type Range = [low: number, high: number];

/** The estimate. */
export interface ResearchEstimate {
  strategy: StrategyName;
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

/** The call structure of minddr with `maxSteps` model steps per search agent. */
function minddrCalls(maxSteps: number, webReading: boolean): { llm: CallKind[]; tools: Range } {
  const agents: Range = [3, 8];
  const steps: Range = [1, Math.max(1, maxSteps)];
  const reads: Range = webReading ? [0, 2 * steps[1]] : [0, 0];
  const llm: CallKind[] = [
    { role: "planner", count: [1, 1], input: 1500, output: 800 },
    { role: "searcher", count: [agents[0] * steps[0], agents[1] * steps[1]], input: 5000, output: 500 },
    { role: "searcher", count: agents, input: 6000, output: 600 },
    { role: "reader", count: [agents[0] * reads[0], agents[1] * reads[1]], input: 12000, output: 800 },
    { role: "writer", count: [1, 1], input: 15000, output: 1500 },
    { role: "writer", count: [4, 20], input: 8000, output: 1200 },
    { role: "writer", count: [1, 1], input: 10000, output: 1200 },
  ];
  const tools: Range = [agents[0] * (1 + steps[0]), agents[1] * (4 + 5 * steps[1])];
  return { llm, tools };
}

/** The call structure of the graph strategy: 1–15 planner iterations of 1–4 nodes. */
function graphCalls(webReading: boolean): { llm: CallKind[]; tools: Range } {
  const iterations: Range = [1, 15];
  const nodes: Range = [iterations[0] * 1 + 2, iterations[1] * 4 + 3];
  const rounds: Range = [1, 10];
  const reads: Range = webReading ? [0, 3] : [0, 0];
  const llm: CallKind[] = [
    { role: "router", count: [1, 1], input: 1200, output: 700 },
    { role: "searcher", count: [nodes[0] * rounds[0], nodes[1] * rounds[1]], input: 5000, output: 500 },
    { role: "searcher", count: nodes, input: 6000, output: 600 },
    { role: "reader", count: [0, nodes[1] * rounds[1] * reads[1]], input: 12000, output: 800 },
    { role: "writer", count: [1, 1], input: 15000, output: 1500 },
    { role: "rubricer", count: [1 + iterations[0], 1 + iterations[1]], input: 4000, output: 600 },
    { role: "planner", count: [iterations[0], 2 * iterations[1]], input: 8000, output: 2000 },
    { role: "critic", count: [iterations[0], 3 * iterations[1]], input: 3000, output: 600 },
    { role: "writer", count: [4, 20], input: 8000, output: 1200 },
    { role: "writer", count: [1, 1], input: 10000, output: 1200 },
  ];
  const tools: Range = [nodes[0] * rounds[0], nodes[1] * rounds[1] * (3 + reads[1])];
  return { llm, tools };
}

/** Estimates a run. */
export function estimateResearch(options: {
  strategy: StrategyName;
  registry: ModelRegistry;
  budget: BudgetLimits;
  maxSteps?: number;
  webReading: boolean;
}): ResearchEstimate {
  if (options.strategy === "offline") {
    return {
      strategy: "offline",
      llmCalls: [0, 0],
      toolCalls: [2, 6],
      tokens: [0, 0],
      costUsd: [0, 0],
      unpriced: [],
      cappedBy: [],
    };
  }
  const { llm, tools } =
    options.strategy === "graph"
      ? graphCalls(options.webReading)
      : minddrCalls(options.maxSteps ?? 4, options.webReading);
  const unpriced = new Set<string>();
  let calls: Range = [0, 0];
  let tokens: Range = [0, 0];
  let cost: Range = [0, 0];
  for (const kind of llm) {
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
    strategy: options.strategy,
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
