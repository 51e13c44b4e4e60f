/**
 * The graph strategy (seed: DuMate-DeepResearch; the default). Router → coarse phase (2–3
 * broad search nodes, then the outline node: the Writer builds the outline from the coarse
 * evidence — as soon as it is settled, while the survey's summaries are written — and it is fixed) → the persistent rubric and, at the same time, INITPLAN (the first
 * real DAG from the outline: search nodes covering every level-1 section) → planner loop: assess executed nodes, re-plan
 * the full DAG only for allowed reasons (legality-checked; an illegal plan is re-asked, then
 * repaired or rejected), pass frontier actions through the reflection gate (the critic sees
 * the executed nodes and their outcomes), run them concurrently (search nodes via inner Search
 * agents that see both rubrics, llm nodes consolidate), regenerate the ephemeral rubric from
 * the evidence (as soon as the batch's evidence is settled, alongside the nodes' summaries)
 * — until the frontier is empty, the planner asks for the report, the rubric
 * reports no gap, the iteration cap, or a budget. The Writer then writes from the fixed
 * outline conditioned on the persistent rubric only, each section with the findings of the
 * nodes that served it. Every role has a fallback (fallbacks.ts).
 */

import { exceededLimit } from "../../core/budget.ts";
import { DossierError } from "../../core/errors.ts";
import { flattenOutline, outlineLeaves } from "../../core/outline.ts";
import {
  addNodes,
  type PlanGraph,
  type PlanNode,
  readyFrontier,
  setNodeStatus,
  updateNode,
} from "../../core/plan-graph.ts";
import { PLAN_DEFAULT_MAX_DEPTH } from "../../core/plan-graph-legality.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import { type ClarifyCallback, specToText } from "../../kit/router.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ResearchOutcome } from "../types.ts";
import { reflectionGate } from "./critic.ts";
import { planCycle, refreshGaps } from "./cycle.ts";
import { type ExecuteOptions, executeBatch, type NodeResult } from "./execute.ts";
import { fixOutline, frameTask, specBesideQuestion } from "./framing.ts";
import { gapsForNode } from "./gaps.ts";
import { initialPlan } from "./init.ts";
import { emptyPlanMessage } from "./plan-yield.ts";
import { describeNode, RESULT_CHARS } from "./planner.ts";
import {
  pendingReport,
  pruneWithReason,
  reportReady,
  stopPruneReason,
  waitingForReport,
} from "./readiness.ts";
import { writeGraphReport } from "./report.ts";
import type { EphemeralRubric } from "./rubricer.ts";
import { runSurvey } from "./survey.ts";

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

/** The coarse phase's plan: broad search nodes, the outline node after them, the report node last. */
export function coarseGraph(broadQueries: readonly string[]): PlanGraph {
  const broad = broadQueries.slice(0, 3);
  const surveyIds = broad.map((_, i) => `T-${i + 1}`);
  const outlineId = `T-${broad.length + 1}`;
  return addNodes({ nodes: [] }, [
    ...broad.map((q, i) => ({
      id: surveyIds[i]!,
      type: "search" as const,
      // The query is the goal; prompts show a node's title and goal side by side, so the title
      // does not repeat it.
      title: `Survey ${i + 1}`,
      goal: q,
      deps: [],
      depth: 1,
    })),
    {
      id: outlineId,
      type: "outline",
      title: "Outline",
      goal: "Build the report outline from the survey",
      deps: surveyIds,
      depth: 2,
    },
    {
      id: `T-${broad.length + 2}`,
      type: "report",
      title: "Report",
      goal: "Write the report",
      deps: [...surveyIds, outlineId],
      depth: 3,
    },
  ]);
}

/** Runs the graph strategy. */
export async function runGraph(ctx: RunContext, options: GraphOptions): Promise<ResearchOutcome> {
  const maxDepth = options.maxDepth ?? PLAN_DEFAULT_MAX_DEPTH;
  const shouldStop = explorationGuard(ctx, options.explorationShare, { outerLoopIterations: true });
  const results = new Map<string, NodeResult>();

  ctx.emit({ type: "phase", phase: "framing" });
  const spec = await ctx.inScope("router", () =>
    frameTask(ctx, { language: options.language, ...(options.clarify ? { clarify: options.clarify } : {}) }),
  );
  const specText = specToText(spec);
  // Prompts that open with the research question do not repeat it as the topic.
  const besideQuestion = specBesideQuestion(specText, spec.topic, ctx.query);
  let graph = coarseGraph(spec.broadQueries);
  ctx.emit({ type: "plan-update", iteration: 0, graph });
  const record = (node: { id: string }, ok: boolean, result: NodeResult) => {
    results.set(node.id, result);
    graph = setNodeStatus(graph, node.id, ok ? "done" : "failed", result);
  };
  const base: ExecuteOptions = {
    tools: options.tools,
    language: options.language,
    context: `Research question: ${ctx.query}\n${besideQuestion}`,
    shouldStop,
    results,
  };
  const survey = readyFrontier(graph);
  ctx.emit({ type: "phase", phase: "surveying", detail: `${survey.length} broad searches` });
  for (const n of survey) graph = setNodeStatus(graph, n.id, "running");
  // The broad queries are direct tool calls (survey.ts); the Writer then builds the outline from
  // their evidence (Algorithm 1, line 2).
  await runSurvey(ctx, survey, options.tools, shouldStop, record);
  const outlineNode = graph.nodes.find((n) => n.type === "outline")!;
  ctx.emit({ type: "phase", phase: "outlining" });
  graph = setNodeStatus(graph, outlineNode.id, "running");
  ctx.emit({ type: "node-start", nodeId: outlineNode.id, nodeType: "outline", title: "Outline" });
  const planned = await ctx.inScope("outline", () => fixOutline(ctx, spec, options.language));
  ctx.emit({ type: "outline-update", outline: planned.outline, reason: "fixed outline from the survey" });
  const sections = `${outlineLeaves(planned.outline).length} sections`;
  ctx.emit({ type: "node-end", nodeId: outlineNode.id, status: "done", summary: sections });
  graph = setNodeStatus(graph, outlineNode.id, "done", { summary: sections, evidenceIds: [] });
  ctx.emit({ type: "plan-update", iteration: 0, graph });
  const outlineText = flattenOutline(planned.outline)
    .map((s) => `${s.id} ${s.title}`)
    .join("; ");
  base.context = `${base.context}\nOutline sections: ${outlineText}`;

  // INITGUIDANCE and INITPLAN (Algorithm 1, line 3) both read only the topic and the outline:
  // one planner call writes the persistent rubric, then the first plan and its first actions,
  // chosen against that rubric (init.ts) — the first cycle needs no planner turn of its own.
  ctx.emit({ type: "phase", phase: "planning", detail: "initial plan" });
  const first = await ctx.inScope("planner", () =>
    initialPlan(ctx, {
      graph,
      spec: besideQuestion,
      outline: planned.outline,
      language: options.language,
      maxDepth,
    }),
  );
  const persistent = first.persistent;
  ctx.emit({ type: "rubric-update", kind: "persistent", rubric: persistent });
  graph = first.graph;
  base.persistentRubric = persistent;
  let firstActions: string[] | null = first.actions;

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
    // The first cycle runs INITPLAN's actions; every later one starts with a planner turn.
    const chosenFirst = firstActions;
    firstActions = null;
    if (!chosenFirst) ctx.emit({ type: "phase", phase: "planning", detail: `iteration ${iteration}` });
    const step = chosenFirst
      ? { graph, actions: chosenFirst, synthesize: false }
      : await ctx.inScope("planner", () =>
          planCycle(ctx, {
            graph,
            spec: besideQuestion,
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
    const frontier = readyFrontier(graph).filter((n) => n.type !== "report" && n.type !== "outline");
    const waiting = waitingForReport(graph);
    let actions: PlanNode[];
    if (step.synthesize) {
      // The report is written only when what it depends on has run: a pending dependency runs first.
      const needed = frontier.filter((n) => waiting.some((w) => w.id === n.id));
      if (waiting.length === 0 || needed.length === 0) {
        stopReason = "planner-synthesize";
        break;
      }
      ctx.emit({
        type: "decision",
        decision: "continue",
        reason: `synthesis deferred: the report depends on ${waiting.length} pending node(s) (${waiting
          .map((n) => n.id)
          .join(", ")}); the ready ones run first`,
      });
      actions = needed;
    } else {
      if (frontier.length === 0) {
        stopReason = "frontier-empty";
        break;
      }
      const chosen = frontier.filter((n) => step.actions.includes(n.id));
      actions = chosen.length > 0 ? chosen : frontier;
    }

    ctx.emit({ type: "phase", phase: "gating", detail: `${actions.length} actions` });
    const executed = graph.nodes
      .filter((n) => n.status === "done" || n.status === "failed")
      .map((n) => describeNode(n, RESULT_CHARS.assessed));
    // The reflection gate decides before any tool runs; the actions' first model calls (an inner
    // agent's first plan, an llm node's note) are made meanwhile, each kept only when the gate
    // lets its node run unrevised (execute.ts). A node is marked running once the gate has passed it.
    const gated = ctx
      .inScope("gate", () =>
        reflectionGate(ctx, {
          actions,
          context: base.context,
          executed: executed.join("\n"),
          maxRounds: options.gateRounds ?? 2,
        }),
      )
      .then((gate) => {
        for (const r of gate.revised) graph = updateNode(graph, r.id, { title: r.title, goal: r.goal });
        for (const a of gate.approved) graph = setNodeStatus(graph, a.id, "running");
        ctx.emit({ type: "plan-update", iteration, graph });
        ctx.emit({
          type: "phase",
          phase: "researching",
          detail: `iteration ${iteration}: ${gate.approved.length} nodes`,
        });
        return new Map(gate.approved.map((a) => [a.id, a]));
      });
    const gaps = ephemeral;
    // UPDATEGUIDANCE reads the evidence, not the nodes' summaries: it starts once every node of
    // the batch has settled its evidence, while their summaries are still being written. An llm
    // node retrieves nothing (its evidence is chosen at once), so a batch of llm nodes has its
    // gaps checked alongside the gate; checked again if the gate's revision chose other evidence.
    let refreshed = null as EphemeralRubric | null;
    await executeBatch(
      ctx,
      actions,
      {
        ...base,
        ...(options.innerRounds ? { innerRounds: options.innerRounds } : {}),
        gapsFor: (node) => gapsForNode(gaps, node),
        clearance: async (node) => (await gated).get(node.id)!,
      },
      record,
      async (gathered, again) => {
        if (again)
          ctx.emit({
            type: "warning",
            code: "DRAFT_DISCARDED",
            message: `iteration ${iteration}: the gap check read evidence a discarded note had chosen; it is discarded and the gaps checked again (the discarded call counts in the budget)`,
          });
        ctx.emit({ type: "phase", phase: "gap-check", detail: `iteration ${iteration}` });
        const settled = new Map(results);
        for (const [id, evidenceIds] of gathered)
          if (!settled.has(id)) settled.set(id, { summary: "", evidenceIds });
        refreshed = await ctx.inScope("rubric", () =>
          refreshGaps(ctx, { graph, planned, spec: specText, results: settled, language: options.language }),
        );
        if (refreshed) ctx.emit({ type: "rubric-update", kind: "ephemeral", rubric: refreshed });
      },
    );
    ctx.emit({ type: "plan-update", iteration, graph });
    ephemeral = refreshed;
    if (ephemeral?.noFurtherRetrieval) {
      stopReason = "no-gaps";
      break;
    }
  }
  const finalReason = stopReason ?? "completed";
  ctx.emit({ type: "decision", decision: "stop", reason: finalReason });
  // Whatever the report still waits for will not run now: pruned, with the stop's reason.
  const unrun = waitingForReport(graph);
  if (unrun.length > 0) {
    graph = pruneWithReason(
      ctx,
      graph,
      unrun.map((n) => n.id),
      stopPruneReason(finalReason),
      "stop",
    );
    ctx.emit({ type: "plan-update", iteration: 0, graph });
  }

  // No research (no tool call, no evidence): the run fails instead of writing an empty report.
  requireResearch(ctx, { stopReason: finalReason });
  const empty = emptyPlanMessage(graph);
  if (empty) ctx.emit({ type: "warning", code: "PLAN_GATHERED_NOTHING", message: empty });
  const report = pendingReport(graph);
  if (report && !reportReady(graph)) {
    throw new DossierError(
      "INTERNAL",
      `report node ${report.id} is not ready: its dependencies did not settle`,
    );
  }
  if (report) ctx.emit({ type: "node-start", nodeId: report.id, nodeType: "report", title: report.title });
  const doc = await writeGraphReport(ctx, {
    spec,
    planned,
    graph,
    results,
    persistent,
    language: options.language,
    stopReason: finalReason,
  });
  requireResearch(ctx, { stopReason: finalReason, body: doc.body });
  if (report)
    ctx.emit({
      type: "node-end",
      nodeId: report.id,
      status: "done",
      summary: `${doc.references.length} references`,
    });
  return { stopReason: doc.stopReason, report: doc };
}
