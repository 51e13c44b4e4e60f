/**
 * The graph strategy (seed: DuMate-DeepResearch; the default). Router → coarse phase (2–3
 * broad search nodes, then the outline node: the Writer builds the outline from the coarse
 * evidence and it is fixed) → persistent rubric → planner loop: assess executed nodes, re-plan
 * the full DAG only for allowed reasons (legality-checked; an illegal plan is re-asked, then
 * repaired or rejected), pass frontier actions through the reflection gate, run them
 * concurrently (search nodes via inner Search agents, llm nodes consolidate), regenerate the
 * ephemeral rubric — until the frontier is empty, the planner asks for the report, the rubric
 * reports no gap, the iteration cap, or a budget. The Writer then writes from the fixed
 * outline conditioned on the persistent rubric only.
 */

import { reflectionGate } from "../agents/critic.ts";
import { type PlannedOutline, proposeOutline } from "../agents/outliner.ts";
import type { ResearchTools } from "../agents/research-tools.ts";
import { type ClarifyCallback, routeTask, specToText, type TaskSpec } from "../agents/router.ts";
import { type EphemeralRubric, persistentRubric, persistentRubricText } from "../agents/rubricer.ts";
import type { RunContext } from "../agents/run-context.ts";
import { exceededLimit } from "../core/budget.ts";
import { isDossierError } from "../core/errors.ts";
import { createOutline, flattenOutline, outlineLeaves } from "../core/outline.ts";
import {
  addNodes,
  type PlanGraph,
  pruneNodes,
  readyFrontier,
  setNodeStatus,
  updateNode,
} from "../core/plan-graph.ts";
import { PLAN_DEFAULT_MAX_DEPTH } from "../core/plan-graph-legality.ts";
import { explorationGuard } from "./exploration-budget.ts";
import { planCycle, refreshGaps } from "./graph-cycle.ts";
import { executeBatch, type NodeResult } from "./graph-execute.ts";
import type { ResearchOutcome } from "./types.ts";
import { writeReport } from "./report-writer.ts";

/** Options of the graph strategy. */
export interface GraphOptions {
  tools: ResearchTools;
  language: string;
  /** Planner iterations at most. Default 15. */
  maxIterations?: number;
  /** Deepest plan layer. Default 5. */
  maxDepth?: number;
  /** Revise rounds of the reflection gate. Default 2. */
  gateRounds?: number;
  /** Rounds of each inner Search agent (≤ 10). */
  innerRounds?: number;
  /** Asks the user clarifying questions (interactive use). */
  clarify?: ClarifyCallback;
  explorationShare?: number;
}

/** Runs the graph strategy. */
export async function runGraph(ctx: RunContext, options: GraphOptions): Promise<ResearchOutcome> {
  const maxDepth = options.maxDepth ?? PLAN_DEFAULT_MAX_DEPTH;
  const shouldStop = explorationGuard(ctx, options.explorationShare);
  const results = new Map<string, NodeResult>();

  ctx.emit({ type: "phase", phase: "framing" });
  const spec = await ctx.inScope("router", () => frame(ctx, options));
  const specText = specToText(spec);
  const context = `Research question: ${ctx.query}\n${specText}`;

  // Coarse phase: broad searches, then the outline node.
  const broad = spec.broadQueries.slice(0, 3);
  const outlineId = `T-${broad.length + 1}`;
  let graph: PlanGraph = addNodes({ nodes: [] }, [
    ...broad.map((q, i) => ({
      id: `T-${i + 1}`,
      type: "search" as const,
      title: `Survey: ${q}`.slice(0, 120),
      goal: q,
      deps: [],
      depth: 1,
    })),
    {
      id: outlineId,
      type: "outline" as const,
      title: "Outline",
      goal: "Build the report outline from the survey",
      deps: broad.map((_, i) => `T-${i + 1}`),
      depth: 2,
    },
    {
      id: `T-${broad.length + 2}`,
      type: "report" as const,
      title: "Report",
      goal: "Write the report",
      deps: [...broad.map((_, i) => `T-${i + 1}`), outlineId],
      depth: 3,
    },
  ]);
  ctx.emit({ type: "plan-update", iteration: 0, graph });
  ctx.emit({ type: "phase", phase: "surveying", detail: `${broad.length} broad searches` });
  const record = (node: { id: string }, ok: boolean, result: NodeResult) => {
    results.set(node.id, result);
    graph = setNodeStatus(graph, node.id, ok ? "done" : "failed", result);
  };
  const coarse = readyFrontier(graph);
  for (const n of coarse) graph = setNodeStatus(graph, n.id, "running");
  await executeBatch(
    ctx,
    coarse,
    { tools: options.tools, language: options.language, context, shouldStop, results, innerRounds: 2 },
    record,
  );

  ctx.emit({ type: "phase", phase: "outlining" });
  graph = setNodeStatus(graph, outlineId, "running");
  ctx.emit({ type: "node-start", nodeId: outlineId, nodeType: "outline", title: "Outline" });
  const planned = await ctx.inScope("outline", () => buildOutline(ctx, spec, options.language));
  ctx.emit({ type: "outline-update", outline: planned.outline, reason: "fixed outline from the survey" });
  ctx.emit({
    type: "node-end",
    nodeId: outlineId,
    status: "done",
    summary: `${outlineLeaves(planned.outline).length} sections`,
  });
  graph = setNodeStatus(graph, outlineId, "done", {
    summary: `${outlineLeaves(planned.outline).length} sections`,
    evidenceIds: [],
  });
  ctx.emit({ type: "plan-update", iteration: 0, graph });

  ctx.emit({ type: "phase", phase: "rubric" });
  const persistent = await ctx.inScope("rubric", async () => {
    try {
      return persistentRubricText(
        await persistentRubric(ctx, { spec: specText, outline: planned.outline, language: options.language }),
      );
    } catch (error) {
      if (isDossierError(error, "CANCELLED")) throw error;
      return "- Coverage: every outline section is supported by evidence. Guidance: check each section has cited sources.";
    }
  });
  ctx.emit({ type: "rubric-update", kind: "persistent", rubric: persistent });

  let ephemeral: EphemeralRubric | null = null;
  let stopReason: string | null = null;
  const assessed = new Set<string>();
  const maxIterations = options.maxIterations ?? 15;
  for (let iteration = 1; ; iteration++) {
    if (iteration > maxIterations) {
      stopReason = "iteration-cap";
      break;
    }
    const guard = shouldStop();
    if (guard) {
      stopReason = guard;
      break;
    }
    try {
      ctx.budget.startIteration();
    } catch (error) {
      stopReason = `budget:${exceededLimit(error) ?? "iterations"}`;
      break;
    }
    ctx.emit({ type: "phase", phase: "planning", detail: `iteration ${iteration}` });
    const step = await ctx.inScope("planner", () =>
      planCycle(ctx, {
        graph,
        spec: specText,
        planned,
        persistent,
        ephemeral,
        language: options.language,
        maxDepth,
        iteration,
        assessed,
      }),
    );
    if ("stop" in step) {
      stopReason = step.stop;
      break;
    }
    graph = step.graph;
    if (step.synthesize) {
      stopReason = "planner-synthesize";
      break;
    }
    const frontier = readyFrontier(graph).filter((n) => n.type !== "report" && n.type !== "outline");
    if (frontier.length === 0) {
      stopReason = "frontier-empty";
      break;
    }
    const chosen = frontier.filter((n) => step.actions.includes(n.id));
    const actions = chosen.length > 0 ? chosen : frontier;

    ctx.emit({ type: "phase", phase: "gating", detail: `${actions.length} actions` });
    const gate = await ctx.inScope("gate", () =>
      reflectionGate(ctx, {
        actions,
        context: `${context}\nOutline sections: ${flattenOutline(planned.outline)
          .map((s) => `${s.id} ${s.title}`)
          .join("; ")}`,
        maxRounds: options.gateRounds ?? 2,
      }),
    );
    for (const r of gate.revised) graph = updateNode(graph, r.id, { title: r.title, goal: r.goal });
    if (gate.dropped.length)
      graph = pruneNodes(
        graph,
        gate.dropped.map((d) => d.node.id),
      );
    const approved = gate.approved.map((a) => graph.nodes.find((n) => n.id === a.id)!);
    for (const n of approved) graph = setNodeStatus(graph, n.id, "running");
    ctx.emit({ type: "plan-update", iteration, graph });

    ctx.emit({
      type: "phase",
      phase: "researching",
      detail: `iteration ${iteration}: ${approved.length} nodes`,
    });
    await executeBatch(
      ctx,
      approved,
      {
        tools: options.tools,
        language: options.language,
        context,
        shouldStop,
        results,
        ...(options.innerRounds ? { innerRounds: options.innerRounds } : {}),
      },
      record,
    );
    ctx.emit({ type: "plan-update", iteration, graph });

    ctx.emit({ type: "phase", phase: "gap-check", detail: `iteration ${iteration}` });
    ephemeral = await ctx.inScope("rubric", () =>
      refreshGaps(ctx, { graph, planned, spec: specText, results, language: options.language }),
    );
    if (ephemeral) ctx.emit({ type: "rubric-update", kind: "ephemeral", rubric: ephemeral });
    if (ephemeral?.noFurtherRetrieval) {
      stopReason = "no-gaps";
      break;
    }
  }
  ctx.emit({ type: "decision", decision: "stop", reason: stopReason ?? "completed" });

  const report = graph.nodes.find((n) => n.type === "report" && n.status === "pending");
  if (report) ctx.emit({ type: "node-start", nodeId: report.id, nodeType: "report", title: report.title });
  const hints: Record<string, string[]> = { ...planned.evidenceHints };
  for (const node of graph.nodes) {
    for (const section of node.sections ?? [])
      hints[section] = [...(hints[section] ?? []), ...(results.get(node.id)?.evidenceIds ?? [])];
  }
  const doc = await writeReport(ctx, {
    title: spec.topic,
    language: options.language,
    trace: [...results.entries()].map(([id, r]) => `[${id}] ${r.summary}`).join("\n"),
    evidence: ctx.evidence.evidence(),
    fallbackSections: [...results.entries()].map(([id, r]) => ({
      title: graph.nodes.find((n) => n.id === id)?.title ?? id,
      text: r.summary,
      allowed: new Set(r.evidenceIds),
    })),
    stopReason: stopReason?.startsWith("budget:") ? stopReason : "completed",
    outline: { ...planned, evidenceHints: hints },
    guidance: `Quality criteria for this report (persistent rubric):\n${persistent}`,
  });
  if (report)
    ctx.emit({
      type: "node-end",
      nodeId: report.id,
      status: "done",
      summary: `${doc.references.length} references`,
    });
  return { stopReason: doc.stopReason, report: doc };
}

async function frame(ctx: RunContext, options: GraphOptions): Promise<TaskSpec> {
  try {
    const { spec, answers } = await routeTask(ctx, {
      language: options.language,
      ...(options.clarify ? { clarify: options.clarify } : {}),
    });
    ctx.emit({ type: "task-framed", spec, assumptions: answers.length ? [] : spec.assumptions });
    return spec;
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    const spec: TaskSpec = {
      topic: ctx.query,
      objectives: [ctx.query],
      constraints: [],
      timeScope: { description: `as of ${ctx.currentDate}` },
      requiredOutputs: [],
      broadQueries: [ctx.query.slice(0, 200), `${ctx.query.slice(0, 180)} overview`],
      ambiguous: false,
      clarifyingQuestions: [],
      assumptions: ["the router failed; the question is taken as written"],
    };
    ctx.emit({ type: "task-framed", spec, assumptions: spec.assumptions });
    return spec;
  }
}

async function buildOutline(ctx: RunContext, spec: TaskSpec, language: string): Promise<PlannedOutline> {
  try {
    return await proposeOutline(ctx, {
      trace: specToText(spec),
      evidence: ctx.evidence.evidence(),
      language,
    });
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    const objectives = spec.objectives.slice(0, 8);
    return {
      title: spec.topic,
      outline: createOutline(objectives.map((o) => ({ title: o.slice(0, 100), plan: o }))),
      evidenceHints: {},
    };
  }
}
