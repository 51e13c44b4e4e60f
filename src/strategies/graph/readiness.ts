/**
 * What the report node waits for, and how the graph strategy settles it. The report node is
 * written only when the plan graph says it is ready: every node it depends on, directly or
 * through other nodes, has run (done or failed) or was pruned with a recorded reason. Work the
 * report depends on is never skipped silently: a planner's "synthesize" is deferred while such
 * nodes are pending, and whatever is still pending when the loop stops (a budget, the iteration
 * cap, the rubric's "no gap") is pruned with the stop's reason.
 */

import { type PlanGraph, type PlanNode, readyFrontier, setNodeStatus } from "../../core/plan-graph.ts";
import type { RunContext } from "../../kit/run-context.ts";

/** The pending report node of the graph, if any. */
export function pendingReport(graph: PlanGraph): PlanNode | undefined {
  return graph.nodes.find((n) => n.type === "report" && n.status === "pending");
}

/**
 * Pending nodes the pending report node depends on, directly or transitively, in graph order.
 * Empty when there is no pending report node.
 */
export function waitingForReport(graph: PlanGraph): PlanNode[] {
  const report = pendingReport(graph);
  if (!report) return [];
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const closure = new Set<string>();
  const stack = [...report.deps];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (closure.has(id)) continue;
    closure.add(id);
    stack.push(...(byId.get(id)?.deps ?? []));
  }
  return graph.nodes.filter((n) => closure.has(n.id) && n.status === "pending");
}

/** Whether the report node is in the ready frontier (every dependency settled). */
export function reportReady(graph: PlanGraph): boolean {
  const report = pendingReport(graph);
  return report !== undefined && readyFrontier(graph).some((n) => n.id === report.id);
}

/** Who pruned a node. */
export type PruneSource = "planner" | "stop";

/**
 * Prunes pending nodes, each keeping `reason` as its result and announced by a `node-pruned`
 * event. Nodes that are not pending are left as they are.
 */
export function pruneWithReason(
  ctx: Pick<RunContext, "emit">,
  graph: PlanGraph,
  ids: readonly string[],
  reason: string,
  by: PruneSource,
): PlanGraph {
  let next = graph;
  for (const id of ids) {
    const node = next.nodes.find((n) => n.id === id);
    if (node?.status !== "pending") continue;
    next = setNodeStatus(next, id, "pruned", { summary: reason, evidenceIds: [], prunedBy: by });
    ctx.emit({ type: "node-pruned", nodeId: id, reason, by });
  }
  return next;
}

/** Marks nodes the planner's accepted revision pruned (already `pruned`) with the planner's reason. */
export function recordPlannerPrunes(
  ctx: Pick<RunContext, "emit">,
  graph: PlanGraph,
  ids: readonly string[],
  reason: string,
): PlanGraph {
  const pruned = new Set(ids);
  if (pruned.size === 0) return graph;
  const nodes = graph.nodes.map((n) =>
    pruned.has(n.id) && n.status === "pruned" && n.result === undefined
      ? { ...n, result: { summary: reason, evidenceIds: [], prunedBy: "planner" as const } }
      : n,
  );
  for (const id of ids) ctx.emit({ type: "node-pruned", nodeId: id, reason, by: "planner" });
  return { ...graph, nodes };
}

/** Why nodes still pending when the loop stopped were not run, for a stop reason. */
export function stopPruneReason(stopReason: string): string {
  if (stopReason.startsWith("budget:")) return `not run: the ${stopReason.slice(7)} budget is spent`;
  switch (stopReason) {
    case "iteration-cap":
      return "not run: the planner's iteration cap was reached";
    case "no-gaps":
      return "not run: the ephemeral rubric found no remaining gap";
    case "frontier-empty":
      return "not run: it can never become ready (a dependency was pruned)";
    case "planner-synthesize":
      return "not run: the planner asked for the report";
    case "no-actions":
      return "not run: the planner chose no further action";
    default:
      return `not run: research stopped (${stopReason})`;
  }
}
