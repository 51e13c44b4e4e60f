/**
 * What the dry estimate of a research request is computed from: the strategy it would run
 * (the same default as a real run), the strategy's checked options, the budget and whether
 * web pages may be read.
 */

import { DossierError } from "../core/errors.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import type { StrategyRegistry } from "../strategies/registry.ts";
import type { Config } from "./config.ts";
import type { estimateResearch } from "./estimate.ts";
import { parseStrategyOptions } from "./research-checks.ts";
import type { ResearchOptions } from "./research-handle.ts";
import { withConfigDefaults } from "./research-handle.ts";
import { researchRequestSchema } from "./research-request.ts";

/** The estimate's input for a request (the model registry is added by the caller). */
export function estimateInput(
  question: string,
  options: ResearchOptions,
  deps: { config: Config; registry: ModelRegistry; strategies: StrategyRegistry },
): Omit<Parameters<typeof estimateResearch>[0], "registry"> {
  const { signal: _s, onEvent: _e, onPrepared: _p, onIndexed: _i, clarify: _c, runId: _r, ...rest } = options;
  const parsed = researchRequestSchema.safeParse(withConfigDefaults(question, rest, deps.config));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DossierError("INPUT_INVALID", `${issue.path.join(".") || "request"}: ${issue.message}`);
  }
  const request = parsed.data;
  const name =
    request.strategy ??
    (deps.registry.configured() ? "graph" : request.docs || request.corpus ? "offline" : "graph");
  const strategy = deps.strategies.get(name);
  return {
    strategy,
    strategyOptions: parseStrategyOptions(strategy, request),
    budget: request.budget,
    verify: request.verify,
    webReading: strategy.capabilities.web && request.sources !== "local" && request.sources !== "local-only",
  };
}
