/**
 * One planner turn of the graph strategy (assessments, a legality-checked plan change, the
 * actions chosen) and the ephemeral-rubric refresh that closes each cycle.
 */

import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import { type PlanGraph, readyFrontier } from "../../core/plan-graph.ts";
import { checkLegality, type PlanViolation } from "../../core/plan-graph-legality.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { NodeResult } from "./execute.ts";
import { failureOf, fallback } from "./fallbacks.ts";
import { evidenceBySection } from "./gap-evidence.ts";
import { type MergeResult, mergeProposal, repairGraph } from "./plan.ts";
import { planNextCycle } from "./planner.ts";
import { recordPlannerPrunes } from "./readiness.ts";
import { type EphemeralRubric, ephemeralRubric, ephemeralRubricText } from "./rubricer.ts";

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
    fallback(ctx, "PLANNER_FAILED", {
      message: `planner failed (${failureOf(error)}); the plan is kept and the ready frontier runs`,
    });
    return { graph: input.graph, actions: readyIds(input.graph), synthesize: false };
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
  const kept = repairedWithoutAsking(merged, input.maxDepth);
  if (kept) {
    ctx.emit({
      type: "warning",
      code: "PLAN_REPAIRED",
      message: `plan repaired without re-asking: ${[...new Set(merged.violations.map((v) => v.code))].join(", ")}; depths set below each node's dependencies and the report node's dependencies fixed, every node and dependency proposed kept`,
    });
    merged = kept;
  }
  if (merged.violations.length > 0) {
    const problems = merged.violations.map(
      (v) => `${v.code}${v.nodeId ? ` (${v.nodeId})` : ""}: ${v.message}`,
    );
    ctx.emit({ type: "warning", code: "PLAN_ILLEGAL", message: `plan re-asked: ${problems.join("; ")}` });
    try {
      decision = await ask(problems);
    } catch (error) {
      if (isDossierError(error, "CANCELLED")) throw error;
      const limit = exceededLimit(error);
      if (limit) return { stop: `budget:${limit}` };
      fallback(ctx, "PLANNER_FAILED", {
        message: `re-asked planner failed (${failureOf(error)}); the plan is kept and the ready frontier runs`,
      });
      return { graph: input.graph, actions: readyIds(input.graph), synthesize: false };
    }
    merged = mergeProposal(input.graph, decision.plan, input.maxDepth);
    if (merged.violations.length > 0) {
      const candidate = repairGraph(merged.graph, input.maxDepth);
      const stillIllegal = checkLegality(candidate, { maxDepth: input.maxDepth });
      if (stillIllegal.length > 0) {
        ctx.emit({
          type: "warning",
          code: "PLAN_REJECTED",
          message: `plan rejected: ${stillIllegal.map((v) => v.code).join(", ")}; the current plan stays in force`,
        });
        // A rejected revision changes nothing: the current plan's ready frontier runs.
        return { graph: input.graph, actions: readyIds(input.graph), synthesize: false };
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
  const graph = recordPlannerPrunes(
    ctx,
    merged.graph,
    merged.diff.pruned,
    `pruned by the planner (${decision.decision.reasons.join(", ")}): ${decision.decision.explanation}`,
  );
  ctx.emit({ type: "plan-update", iteration: input.iteration, graph, diff: merged.diff });
  return { graph, actions: decision.actions, synthesize: decision.synthesize };
}

/**
 * Violations the deterministic repair fixes without changing what the planner proposed: a depth
 * number not below a dependency's (the dependencies say where the node belongs), the report
 * node's dependencies (it must depend on every live node) and a missing report node (added,
 * depending on every live node; a second report node is re-asked: repairing it drops a node).
 * Dossier's own legality rules, so a plan that breaks only these is repaired rather than re-asked.
 */
const repairableWithoutAsking = (v: PlanViolation): boolean =>
  v.code === "DEP_DEPTH" || v.code === "REPORT_DEPS" || (v.code === "REPORT_COUNT" && v.nodeId === undefined);

/**
 * The merged plan repaired without a call, when every violation is one the repair fixes without
 * dropping a node or a dependency and the repaired plan is legal; else null (the planner is
 * re-asked).
 */
function repairedWithoutAsking(merged: MergeResult, maxDepth: number): MergeResult | null {
  if (merged.violations.length === 0) return null;
  if (!merged.violations.every(repairableWithoutAsking)) return null;
  const candidate = repairGraph(merged.graph, maxDepth);
  if (checkLegality(candidate, { maxDepth }).length > 0) return null;
  return { graph: candidate, diff: merged.diff, violations: [] };
}

/**
 * The ready frontier's ids (outline and report aside): what runs when the planner could not
 * decide — a planner's own empty choice ends the loop instead (Algorithm 2, line 5).
 */
function readyIds(graph: PlanGraph): string[] {
  return readyFrontier(graph)
    .filter((n) => n.type !== "report" && n.type !== "outline")
    .map((n) => n.id);
}

/** Regenerates the ephemeral rubric from the evidence itself; null (warning `GAPS_FALLBACK`) when the rubricer fails. */
export async function refreshGaps(
  ctx: RunContext,
  input: {
    graph: PlanGraph;
    planned: PlannedOutline;
    spec: string;
    results: ReadonlyMap<string, NodeResult>;
    language: string;
    /** Characters of each section's evidence the check reads (gap-evidence.ts). */
    sectionChars?: number;
  },
): Promise<EphemeralRubric | null> {
  try {
    return await ephemeralRubric(ctx, {
      spec: input.spec,
      outline: input.planned.outline,
      evidence: evidenceBySection(ctx, input),
      language: input.language,
    });
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    fallback(ctx, "GAPS_FALLBACK", {
      message: `ephemeral rubric failed (${failureOf(error)}); no gaps this cycle, research goes on`,
    });
    return null;
  }
}
