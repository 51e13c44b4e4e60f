/**
 * The graph strategy's synthesis step (Algorithm 1, line 11): the Writer writes the fixed
 * outline conditioned on the persistent rubric only, and each section writer sees the findings
 * of the nodes that served its section — inner agents' summaries and llm nodes' consolidation
 * notes (conflicts, merged figures) — and the task's constraints, required outputs and time
 * scope, then the excerpts it may cite. The report's frame (title, introduction, conclusion) is
 * written in the same step, alongside the sections, from what each section writer was given:
 * DuMate's Writer synthesises the report from the accumulated evidence, with no editor pass
 * after it (see the frame pass, kit/frame-pass.ts).
 */

import type { PlanGraph } from "../../core/plan-graph.ts";
import type { ReportDocument } from "../../core/report.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import { writeReport } from "../../kit/report-writer.ts";
import type { TaskSpec } from "../../kit/router.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { Finding } from "../../kit/writer-brief.ts";
import type { NodeResult } from "./execute.ts";
import { writerSpec } from "./framing.ts";

/**
 * The findings of executed nodes: consolidation notes first, then search summaries by depth. The
 * coarse phase's broad searches (the outline node's dependencies) leave a listing of what they
 * found, not a finding: their evidence reaches the writers as excerpts.
 */
export function nodeFindings(graph: PlanGraph, results: ReadonlyMap<string, NodeResult>): Finding[] {
  const survey = new Set(graph.nodes.filter((n) => n.type === "outline").flatMap((n) => n.deps));
  const executed = graph.nodes
    .filter((n) => (n.type === "search" || n.type === "llm") && results.has(n.id) && !survey.has(n.id))
    .filter((n) => n.status === "done" || results.get(n.id)!.evidenceIds.length > 0)
    .sort((a, b) => (a.type === b.type ? a.depth - b.depth : a.type === "llm" ? -1 : 1));
  return executed.map((n) => ({
    label: `${n.id} ${n.type === "llm" ? "consolidation" : "search"} "${n.title}"`,
    text: results.get(n.id)!.summary,
    ...(n.sections?.length ? { sections: [...n.sections] } : {}),
  }));
}

/** Writes the report of a graph run. */
export async function writeGraphReport(
  ctx: RunContext,
  input: {
    spec: TaskSpec;
    planned: PlannedOutline;
    graph: PlanGraph;
    results: ReadonlyMap<string, NodeResult>;
    persistent: string;
    language: string;
    stopReason: string;
  },
): Promise<ReportDocument> {
  const { graph, results, planned } = input;
  const hints: Record<string, string[]> = { ...planned.evidenceHints };
  for (const node of graph.nodes) {
    for (const section of node.sections ?? [])
      hints[section] = [...(hints[section] ?? []), ...(results.get(node.id)?.evidenceIds ?? [])];
  }
  return writeReport(ctx, {
    title: input.spec.topic,
    language: input.language,
    trace: [...results.entries()].map(([id, r]) => `[${id}] ${r.summary}`).join("\n"),
    evidence: ctx.evidence.evidence(),
    fallbackSections: [...results.entries()].map(([id, r]) => ({
      title: graph.nodes.find((n) => n.id === id)?.title ?? id,
      text: r.summary,
      allowed: new Set(r.evidenceIds),
    })),
    stopReason: input.stopReason,
    outline: { ...planned, evidenceHints: hints },
    guidance: `Quality criteria for this report (persistent rubric):\n${input.persistent}`,
    findings: nodeFindings(graph, results),
    spec: writerSpec(input.spec),
    frame: "alongside",
  });
}
