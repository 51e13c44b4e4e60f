/**
 * Whether the plan's own subtasks gave the report anything: when every search and llm node the
 * loop ran failed, the report rests on the coarse phase's broad searches alone. The run still did
 * research (it is not NO_RESEARCH), but its record says so.
 */

import type { PlanGraph } from "../../core/plan-graph.ts";

/** The warning's text when every subtask the loop ran failed; null when one gave something or none ran. */
export function emptyPlanMessage(graph: PlanGraph): string | null {
  const survey = new Set(graph.nodes.filter((n) => n.type === "outline").flatMap((n) => n.deps));
  const ran = graph.nodes.filter(
    (n) =>
      (n.type === "search" || n.type === "llm") &&
      !survey.has(n.id) &&
      (n.status === "done" || n.status === "failed"),
  );
  if (ran.length === 0 || ran.some((n) => n.status === "done")) return null;
  return `every subtask of the plan failed (${ran.map((n) => n.id).join(", ")}): the report rests on the broad searches alone`;
}
