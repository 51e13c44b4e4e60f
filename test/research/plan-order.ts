/**
 * The plan-graph executor's ordering rule, checked over a run's event log: a node starts only
 * after every node it depends on (in the plan as it stood when it started) has ended. A
 * dependency that never ran, or ended after the start, is a violation. The outline node reads
 * its dependencies' evidence, not their summaries: it may start once they have settled their
 * evidence — none of their tool calls ends after it started — while their summaries are written.
 */

import type { DossierEvent } from "../../src/core/events.ts";

interface LoggedGraph {
  nodes: { id: string; type?: string; deps: string[] }[];
}

/** Every node start whose dependencies had not all ended, as readable lines (empty when none). */
export function dependencyOrderViolations(events: readonly DossierEvent[]): string[] {
  const problems: string[] = [];
  const ended = new Set<string>();
  /** Dependencies still writing their summaries when an outline node started: dependency → outline. */
  const settling = new Map<string, string>();
  let graph: LoggedGraph = { nodes: [] };
  for (const e of events) {
    if (e.type === "plan-update") graph = e.graph as LoggedGraph;
    else if (e.type === "node-end") {
      ended.add(e.nodeId);
      settling.delete(e.nodeId);
    } else if (e.type === "tool-end") {
      const dep = e.scope?.split(":")[1];
      const outline = dep ? settling.get(dep) : undefined;
      if (outline) {
        problems.push(`${outline} started before ${dep} settled its evidence`);
        settling.delete(dep!);
      }
    } else if (e.type === "node-start") {
      const node = graph.nodes.find((n) => n.id === e.nodeId);
      if (!node) {
        problems.push(`${e.nodeId} started but is not in the plan`);
        continue;
      }
      const open = node.deps.filter((d) => !ended.has(d));
      if (node.type === "outline") for (const d of open) settling.set(d, e.nodeId);
      else if (open.length > 0) problems.push(`${e.nodeId} started before ${open.join(", ")} ended`);
    }
  }
  return problems;
}
