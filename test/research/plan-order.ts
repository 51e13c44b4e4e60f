/**
 * The plan-graph executor's ordering rule, checked over a run's event log: a node starts only
 * after every node it depends on (in the plan as it stood when it started) has ended. A
 * dependency that never ran, or ended after the start, is a violation.
 */

import type { DossierEvent } from "../../src/core/events.ts";

interface LoggedGraph {
  nodes: { id: string; deps: string[] }[];
}

/** Every node start whose dependencies had not all ended, as readable lines (empty when none). */
export function dependencyOrderViolations(events: readonly DossierEvent[]): string[] {
  const problems: string[] = [];
  const ended = new Set<string>();
  let graph: LoggedGraph = { nodes: [] };
  for (const e of events) {
    if (e.type === "plan-update") graph = e.graph as LoggedGraph;
    else if (e.type === "node-end") ended.add(e.nodeId);
    else if (e.type === "node-start") {
      const node = graph.nodes.find((n) => n.id === e.nodeId);
      if (!node) {
        problems.push(`${e.nodeId} started but is not in the plan`);
        continue;
      }
      const open = node.deps.filter((d) => !ended.has(d));
      if (open.length > 0) problems.push(`${e.nodeId} started before ${open.join(", ")} ended`);
    }
  }
  return problems;
}
