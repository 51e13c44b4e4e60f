/**
 * One graph run in progress: the plan graph — replaced as nodes run, as the planner re-plans and
 * as the reflection gate revises and releases nodes — the results of the executed nodes, and
 * what every executor is given (the task and the outline, the persistent rubric, the results).
 */

import { type PlanGraph, setNodeStatus } from "../../core/plan-graph.ts";
import type { ExecuteOptions, NodeResult } from "./execute.ts";

/** A graph run in progress (see the module comment). */
export interface GraphRun {
  /** The plan in force. */
  graph: PlanGraph;
  /** Results of the executed nodes, by node id. */
  readonly results: Map<string, NodeResult>;
  /** What every node's executor is given. */
  readonly base: ExecuteOptions;
  /** The coarse phase's nodes (broad searches, outline, report): not the plan's own. */
  readonly coarse: ReadonlySet<string>;
}

/** Records a node's result and marks it done or failed in the plan. */
export function recordNode(run: GraphRun, node: { id: string }, ok: boolean, result: NodeResult): void {
  run.results.set(node.id, result);
  run.graph = setNodeStatus(run.graph, node.id, ok ? "done" : "failed", result);
}
