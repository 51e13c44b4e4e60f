/**
 * One planner turn of the graph strategy (assessments, a legality-checked plan change, the
 * actions chosen) and the ephemeral-rubric refresh that closes each cycle.
 */

import { planNextCycle } from "../agents/graph-planner.ts";
import type { PlannedOutline } from "../agents/outliner.ts";
import { type EphemeralRubric, ephemeralRubric, ephemeralRubricText } from "../agents/rubricer.ts";
import type { RunContext } from "../agents/run-context.ts";
import { exceededLimit } from "../core/budget.ts";
import { isDossierError } from "../core/errors.ts";
import { flattenOutline } from "../core/outline.ts";
import type { PlanGraph } from "../core/plan-graph.ts";
import { checkLegality } from "../core/plan-graph-legality.ts";
import type { NodeResult } from "./graph-execute.ts";
import { mergeProposal, repairGraph } from "./graph-plan.ts";

/** What a planner turn needs. */
export interface CycleInput {
  graph: PlanGraph;
  spec: string;
  planned: PlannedOutline;
  persistent: string;
  ephemeral: EphemeralRubric | null;
  language: string;
  maxDepth: number;
  iteration: number;
  assessed: Set<string>;
}

/** One planner turn: assessments, a legality-checked plan change, and the actions chosen. */
export async function planCycle(
  ctx: RunContext,
  input: CycleInput,
): Promise<{ graph: PlanGraph; actions: string[]; synthesize: boolean } | { stop: string }> {
  const ask = (violations?: string[]) =>
    planNextCycle(ctx, {
      spec: input.spec,
      outline: input.planned.outline,
      graph: input.graph,
      persistentRubric: input.persistent,
      ephemeralRubric: ephemeralRubricText(input.ephemeral),
      language: input.language,
      maxDepth: input.maxDepth,
      iteration: input.iteration,
      assessed: input.assessed,
      ...(violations ? { violations } : {}),
    });
  let decision: Awaited<ReturnType<typeof ask>>;
  try {
    decision = await ask();
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    const limit = exceededLimit(error);
    if (limit) return { stop: `budget:${limit}` };
    ctx.emit({
      type: "warning",
      code: "PLANNER_FAILED",
      message: `planner failed (${isDossierError(error) ? error.code : "error"}); running the current frontier`,
    });
    return { graph: input.graph, actions: [], synthesize: false };
  }
  const executed = new Set(
    input.graph.nodes.filter((n) => n.status === "done" || n.status === "failed").map((n) => n.id),
  );
  for (const a of decision.assessments) {
    if (!executed.has(a.nodeId) || input.assessed.has(a.nodeId)) continue;
    input.assessed.add(a.nodeId);
    ctx.emit({
      type: "node-assessed",
      nodeId: a.nodeId,
      verdict: a.verdict,
      reason: a.reason,
      iteration: input.iteration,
    });
  }
  if (!decision.decision.changePlan || decision.decision.reasons.length === 0) {
    ctx.emit({
      type: "decision",
      decision: "continue",
      reason: `plan kept: ${decision.decision.explanation}`,
    });
    return { graph: input.graph, actions: decision.actions, synthesize: decision.synthesize };
  }
  let merged = mergeProposal(input.graph, decision.plan, input.maxDepth);
  if (merged.violations.length > 0) {
    const problems = merged.violations.map(
      (v) => `${v.code}${v.nodeId ? ` (${v.nodeId})` : ""}: ${v.message}`,
    );
    ctx.emit({ type: "warning", code: "PLAN_ILLEGAL", message: `plan re-asked: ${problems.join("; ")}` });
    try {
      decision = await ask(problems);
    } catch (error) {
      if (isDossierError(error, "CANCELLED")) throw error;
      return { graph: input.graph, actions: [], synthesize: false };
    }
    merged = mergeProposal(input.graph, decision.plan, input.maxDepth);
    if (merged.violations.length > 0) {
      const candidate = repairGraph(merged.graph, input.maxDepth);
      const stillIllegal = checkLegality(candidate, { maxDepth: input.maxDepth });
      if (stillIllegal.length > 0) {
        ctx.emit({
          type: "warning",
          code: "PLAN_REJECTED",
          message: `plan rejected: ${stillIllegal.map((v) => v.code).join(", ")}`,
        });
        return { graph: input.graph, actions: [], synthesize: decision.synthesize };
      }
      merged = { graph: candidate, diff: merged.diff, violations: [] };
      ctx.emit({
        type: "warning",
        code: "PLAN_REPAIRED",
        message: "plan repaired: stale dependencies and the report node fixed",
      });
    }
  }
  ctx.emit({
    type: "decision",
    decision: "continue",
    reason: `plan changed (${decision.decision.reasons.join(", ")}): ${decision.decision.explanation}`,
  });
  ctx.emit({ type: "plan-update", iteration: input.iteration, graph: merged.graph, diff: merged.diff });
  return { graph: merged.graph, actions: decision.actions, synthesize: decision.synthesize };
}

/** Regenerates the ephemeral rubric from evidence coverage; null when the rubricer fails. */
export async function refreshGaps(
  ctx: RunContext,
  input: {
    graph: PlanGraph;
    planned: PlannedOutline;
    spec: string;
    results: ReadonlyMap<string, NodeResult>;
    language: string;
  },
): Promise<EphemeralRubric | null> {
  const coverage = flattenOutline(input.planned.outline)
    .map((s) => {
      const nodes = input.graph.nodes.filter((n) => n.sections?.includes(s.id) && input.results.has(n.id));
      const count = nodes.reduce((sum, n) => sum + (input.results.get(n.id)?.evidenceIds.length ?? 0), 0);
      const summaries = nodes
        .map((n) => `${n.id}: ${input.results.get(n.id)!.summary.slice(0, 200)}`)
        .join(" | ");
      return `${s.id} ${s.title}: ${count} evidence${summaries ? ` — ${summaries}` : ""}`;
    })
    .join("\n");
  const general = [...input.results.entries()]
    .filter(([id]) => !input.graph.nodes.find((n) => n.id === id)?.sections?.length)
    .map(([id, r]) => `${id}: ${r.evidenceIds.length} evidence — ${r.summary.slice(0, 200)}`)
    .join("\n");
  try {
    return await ephemeralRubric(ctx, {
      spec: input.spec,
      outline: input.planned.outline,
      coverage: `${coverage}${general ? `\nNot tied to a section:\n${general}` : ""}`,
      language: input.language,
    });
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    return null;
  }
}
