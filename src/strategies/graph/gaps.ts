/**
 * Which gaps of the ephemeral rubric an inner Search agent sees: those that affect the
 * sections its node serves (all of them for a node tied to no section), as prompt lines.
 */

import type { PlanNode } from "../../core/plan-graph.ts";
import { servesSection } from "../../kit/writer-brief.ts";
import type { EphemeralRubric } from "./rubricer.ts";

/** The ephemeral gaps that concern `node`, as prompt lines; empty when there are none. */
export function gapsForNode(rubric: EphemeralRubric | null, node: Pick<PlanNode, "sections">): string {
  if (!rubric) return "";
  const relevant = rubric.gaps.filter(
    (g) =>
      !node.sections?.length ||
      g.sections.length === 0 ||
      g.sections.some((s) => servesSection(node.sections, s)),
  );
  return relevant
    .map((g) => `- [${g.type}] sections ${g.sections.join(", ") || "?"}: ${g.description} → ${g.action}`)
    .join("\n");
}
