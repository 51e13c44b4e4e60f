/**
 * How the plan's own nodes ended — the nodes INITPLAN and the planner added, not the survey's
 * broad searches, the outline or the report: a run whose every plan node failed has researched
 * nothing of its plan, whatever the survey found, so "no gaps" is not a verdict to stop on, and
 * the run cannot complete (`no-research`, its report kept).
 */

import type { PlanGraph } from "../../core/plan-graph.ts";

/** Counts of the plan nodes that ended, by outcome. */
export function planOutcomes(
  graph: PlanGraph,
  coarse: ReadonlySet<string>,
): { done: number; failed: number } {
  const plan = graph.nodes.filter((n) => !coarse.has(n.id) && n.type !== "report" && n.type !== "outline");
  return {
    done: plan.filter((n) => n.status === "done").length,
    failed: plan.filter((n) => n.status === "failed").length,
  };
}

/** True when plan nodes ran and every one of them failed. */
export function everyPlanNodeFailed(graph: PlanGraph, coarse: ReadonlySet<string>): boolean {
  const { done, failed } = planOutcomes(graph, coarse);
  return failed > 0 && done === 0;
}
