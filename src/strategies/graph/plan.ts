/**
 * Accepting a planner's proposed DAG: merge it into the current graph (executed nodes are
 * never changed), check legality, and — when the model's plan is still illegal after it was
 * re-asked — repair what can be repaired deterministically (stale dependencies, the report
 * node's dependencies and depth, depths below a dependency) or reject it.
 */

import {
  applyProposedPlan,
  nextNodeId,
  type PlanDiff,
  type PlanGraph,
  type PlanNode,
  type PlanNodeProposal,
} from "../../core/plan-graph.ts";
import { checkLegality, type PlanViolation } from "../../core/plan-graph-legality.ts";

/** The result of merging a proposal. */
export interface MergeResult {
  graph: PlanGraph;
  diff: PlanDiff;
  violations: PlanViolation[];
}

const live = (n: PlanNode) => n.status !== "pruned";

/** Merges a proposal and checks it. */
export function mergeProposal(
  graph: PlanGraph,
  proposals: readonly PlanNodeProposal[],
  maxDepth: number,
): MergeResult {
  const merged = applyProposedPlan(graph, proposals);
  return { graph: merged.graph, diff: merged.diff, violations: checkLegality(merged.graph, { maxDepth }) };
}

/**
 * Deterministic repairs of a merged graph: pending nodes lose dependencies on missing or
 * pruned nodes and are moved below their deepest dependency; extra pending report nodes are
 * pruned; the report node depends on every other live node and sits one level below the
 * deepest. Executed nodes are never touched.
 */
export function repairGraph(graph: PlanGraph, maxDepth: number): PlanGraph {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  let nodes = graph.nodes.map((n) => ({ ...n, deps: [...n.deps] }));
  const reports = nodes.filter((n) => n.type === "report" && live(n));
  const keep = reports.find((n) => n.status !== "pending") ?? reports[0];
  nodes = nodes.map((n) =>
    n.type === "report" && live(n) && n !== keep && n.status === "pending"
      ? { ...n, status: "pruned" as const }
      : n,
  );
  const depthOf = new Map(nodes.map((n) => [n.id, n.depth]));
  const movable = nodes.filter((n) => n.status === "pending" && n.type !== "report");
  for (const n of movable)
    n.deps = n.deps.filter((d) => {
      const dep = byId.get(d);
      return dep !== undefined && live(dep) && d !== n.id;
    });
  // A node may depend on one listed after it: passes until no depth moves (at most one pass per
  // node in an acyclic plan). A cycle would move depths forever: it keeps the first pass's
  // depths and stays illegal (the caller's check rejects it).
  const pass = (depths: Map<string, number>) => {
    let moved = false;
    for (const n of movable) {
      const deepest = Math.max(0, ...n.deps.map((d) => depths.get(d) ?? 0));
      if (depths.get(n.id)! > deepest) continue;
      depths.set(n.id, deepest + 1);
      moved = true;
    }
    return moved;
  };
  pass(depthOf);
  const settled = new Map(depthOf);
  let moving = true;
  for (let i = 0; moving && i < movable.length; i++) moving = pass(settled);
  const depths = moving ? depthOf : settled;
  for (const n of movable) n.depth = depths.get(n.id)!;
  if (keep && keep.status === "pending") {
    const others = nodes.filter((n) => live(n) && n.id !== keep.id && n.type !== "report");
    const report = nodes.find((n) => n.id === keep.id)!;
    report.deps = others.map((n) => n.id);
    report.depth = Math.min(maxDepth, Math.max(0, ...others.map((n) => n.depth)) + 1);
  } else if (!keep) {
    const others = nodes.filter((n) => live(n));
    nodes.push({
      id: nextNodeId({ nodes }),
      type: "report",
      title: "Report",
      goal: "Write the report",
      deps: others.map((n) => n.id),
      depth: Math.min(maxDepth, Math.max(0, ...others.map((n) => n.depth)) + 1),
      status: "pending",
    });
  }
  return { nodes };
}
