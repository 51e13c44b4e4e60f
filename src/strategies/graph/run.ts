/**
 * The graph strategy (seed: DuMate-DeepResearch, Algorithm 1; the default). Router → coarse
 * phase (§2.2.1: 2–3 broad search nodes, then the outline node: the Writer builds the outline
 * from the coarse evidence — as soon as it is settled, while the survey's summaries are written —
 * and it is fixed; line 2) → the persistent rubric and, at the same time, INITPLAN (line 3: the
 * first real DAG from the outline: search nodes covering every level-1 section) → planner loop:
 * assess executed nodes, re-plan the full DAG only for allowed reasons (legality-checked; an
 * illegal plan is re-asked, then repaired or rejected; cycle.ts), pass frontier actions through
 * the reflection gate (Algorithm 2; the critic sees the executed nodes and their outcomes), run
 * them concurrently (search nodes via inner Search agents that see both rubrics, llm nodes
 * consolidate), regenerate the ephemeral rubric from the evidence (as soon as the batch's
 * evidence is settled, alongside the nodes' summaries; batch.ts) — until the frontier is empty,
 * the planner chooses no action or asks for the report, the rubric reports no gap (not taken
 * while every plan node has failed), the iteration cap, or a budget.
 * The Writer then writes from the fixed outline conditioned on the persistent rubric only, each
 * section with the findings of the nodes that served it (line 11; report.ts). Every role has a
 * fallback (fallbacks.ts).
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
} from "../../core/plan-graph.ts";
import { PLAN_DEFAULT_MAX_DEPTH } from "../../core/plan-graph-legality.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import { type ClarifyCallback, specToText, type TaskSpec } from "../../kit/router.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ResearchOutcome } from "../types.ts";
import { runGatedBatch } from "./batch.ts";
import { type CycleInput, planCycle } from "./cycle.ts";
import type { NodeResult } from "./execute.ts";
import { fixOutline, frameTask, specBesideQuestion } from "./framing.ts";
import { type FirstPlan, type InitPlanInput, initialPlan } from "./init.ts";
import { everyPlanNodeFailed } from "./plan-outcome.ts";
import { emptyPlanMessage } from "./plan-yield.ts";
import {
  pendingReport,
  pruneWithReason,
  reportReady,
  stopPruneReason,
  waitingForReport,
} from "./readiness.ts";
import { writeGraphReport } from "./report.ts";
import { reviewGraphPlan } from "./review.ts";
import type { EphemeralRubric } from "./rubricer.ts";
import { type GraphRun, recordNode } from "./run-state.ts";
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
  /** Characters of each outline section's evidence the gap check reads. Default 4,000. */
  gapChars?: number;
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

/**
 * Runs the graph strategy (Algorithm 1): the router, the coarse phase and the fixed outline
 * (line 2), INITGUIDANCE and INITPLAN (line 3), the plan loop — a planner turn, the actions
 * through the reflection gate (Algorithm 2), their execution and UPDATEGUIDANCE — until a stop,
 * then the Writer (line 11).
 */
export async function runGraph(ctx: RunContext, options: GraphOptions): Promise<ResearchOutcome> {
  const { language } = options;
  const maxDepth = options.maxDepth ?? PLAN_DEFAULT_MAX_DEPTH;
  const shouldStop = explorationGuard(ctx, options.explorationShare, { outerLoopIterations: true });
  ctx.emit({ type: "phase", phase: "framing" });
  const spec = await ctx.inScope("router", () =>
    frameTask(ctx, { language, ...(options.clarify ? { clarify: options.clarify } : {}) }),
  );
  const specText = specToText(spec);
  // Prompts that open with the research question do not repeat it as the topic.
  const besideQuestion = specBesideQuestion(specText, spec.topic, ctx.query);
  const run = startRun(ctx, spec, `Research question: ${ctx.query}\n${besideQuestion}`, options, shouldStop);
  await surveyBroadly(ctx, run, options.tools, shouldStop);
  const outlined = await outlineFromSurvey(ctx, run, spec, language);
  const first = await initPlan(ctx, run, {
    spec: besideQuestion,
    outline: outlined.outline,
    language,
    maxDepth,
  });
  // With `reviewPlan` the run stops here until the outline and first plan are reviewed (review.ts).
  const { planned, actions } = reviewGraphPlan(ctx, run, outlined, first, maxDepth);
  const { persistent } = first;
  let firstActions: string[] | null = actions;

  let ephemeral: EphemeralRubric | null = null;
  let stopReason: string | null = null;
  const assessed = new Set<string>();
  const maxIterations = options.maxIterations ?? 15;
  for (let iteration = 1; ; iteration++) {
    stopReason = iterationStop(ctx, iteration, maxIterations, shouldStop);
    if (stopReason) break;
    // The first cycle runs INITPLAN's actions; every later one starts with a planner turn.
    const step = firstActions
      ? { graph: run.graph, actions: firstActions, synthesize: false }
      : await plannerTurn(ctx, {
          graph: run.graph,
          spec: besideQuestion,
          planned,
          persistent,
          ephemeral,
          language,
          maxDepth,
          iteration,
          assessed,
        });
    firstActions = null;
    if ("stop" in step) {
      stopReason = step.stop;
      break;
    }
    run.graph = step.graph;
    const chosen = chooseActions(ctx, run.graph, step);
    if ("stop" in chosen) {
      stopReason = chosen.stop;
      break;
    }
    ephemeral = await runGatedBatch(ctx, run, chosen.actions, {
      iteration,
      ephemeral,
      planned,
      specText,
      language,
      ...(options.gateRounds !== undefined ? { gateRounds: options.gateRounds } : {}),
      ...(options.innerRounds ? { innerRounds: options.innerRounds } : {}),
      ...(options.gapChars !== undefined ? { gapChars: options.gapChars } : {}),
    });
    if (ephemeral?.noFurtherRetrieval) {
      // "No gaps" is no verdict while every plan node has failed: the plan researched nothing.
      if (!everyPlanNodeFailed(run.graph, run.coarse)) {
        stopReason = "no-gaps";
        break;
      }
      ctx.emit({
        type: "decision",
        decision: "continue",
        reason: "the rubric finds no gaps, but every plan node failed: not accepted",
      });
    }
  }
  const finalReason = everyPlanNodeFailed(run.graph, run.coarse)
    ? `no-research: every plan node failed (${stopReason ?? "completed"})`
    : (stopReason ?? "completed");
  stopAndPrune(ctx, run, finalReason);
  return writeReportNode(ctx, run, { spec, planned, persistent, language, stopReason: finalReason });
}

/** The run's start: the coarse plan (announced) and what every executor is given. */
function startRun(
  ctx: RunContext,
  spec: TaskSpec,
  context: string,
  options: GraphOptions,
  shouldStop: () => string | null,
): GraphRun {
  const graph = coarseGraph(spec.broadQueries);
  ctx.emit({ type: "plan-update", iteration: 0, graph });
  const results = new Map<string, NodeResult>();
  return {
    graph,
    results,
    base: { tools: options.tools, language: options.language, context, shouldStop, results },
    coarse: new Set(graph.nodes.map((n) => n.id)),
  };
}

/**
 * The coarse phase's broad searches (§2.2.1): direct tool calls (survey.ts), whose evidence the
 * Writer then builds the outline from (Algorithm 1, line 2).
 */
async function surveyBroadly(
  ctx: RunContext,
  run: GraphRun,
  tools: ResearchTools,
  shouldStop: () => string | null,
): Promise<void> {
  const survey = readyFrontier(run.graph);
  ctx.emit({ type: "phase", phase: "surveying", detail: `${survey.length} broad searches` });
  for (const n of survey) run.graph = setNodeStatus(run.graph, n.id, "running");
  await runSurvey(ctx, survey, tools, shouldStop, (node, ok, result) => recordNode(run, node, ok, result));
}

/**
 * The outline node (Algorithm 1, line 2): the Writer builds the outline from the survey's
 * evidence, and it is fixed for the run; every executor is shown its sections from then on.
 */
async function outlineFromSurvey(
  ctx: RunContext,
  run: GraphRun,
  spec: TaskSpec,
  language: string,
): Promise<PlannedOutline> {
  const outlineNode = run.graph.nodes.find((n) => n.type === "outline")!;
  ctx.emit({ type: "phase", phase: "outlining" });
  run.graph = setNodeStatus(run.graph, outlineNode.id, "running");
  ctx.emit({ type: "node-start", nodeId: outlineNode.id, nodeType: "outline", title: "Outline" });
  const planned = await ctx.inScope("outline", () => fixOutline(ctx, spec, language));
  ctx.emit({ type: "outline-update", outline: planned.outline, reason: "fixed outline from the survey" });
  const sections = `${outlineLeaves(planned.outline).length} sections`;
  ctx.emit({ type: "node-end", nodeId: outlineNode.id, status: "done", summary: sections });
  run.graph = setNodeStatus(run.graph, outlineNode.id, "done", { summary: sections, evidenceIds: [] });
  ctx.emit({ type: "plan-update", iteration: 0, graph: run.graph });
  const outlineText = flattenOutline(planned.outline)
    .map((s) => `${s.id} ${s.title}`)
    .join("; ");
  run.base.context = `${run.base.context}\nOutline sections: ${outlineText}`;
  return planned;
}

/**
 * INITGUIDANCE and INITPLAN (Algorithm 1, line 3) both read only the topic and the outline: one
 * planner call writes the persistent rubric, then the first plan and its first actions, chosen
 * against that rubric (init.ts) — the first cycle needs no planner turn of its own.
 */
async function initPlan(
  ctx: RunContext,
  run: GraphRun,
  input: Omit<InitPlanInput, "graph">,
): Promise<FirstPlan> {
  ctx.emit({ type: "phase", phase: "planning", detail: "initial plan" });
  const first = await ctx.inScope("planner", () => initialPlan(ctx, { graph: run.graph, ...input }));
  ctx.emit({ type: "rubric-update", kind: "persistent", rubric: first.persistent });
  run.graph = first.graph;
  run.base.persistentRubric = first.persistent;
  return first;
}

/** Why the loop stops before this iteration (the iteration cap, the exploration share, a budget limit); null: it runs, counted in the budget. */
function iterationStop(
  ctx: RunContext,
  iteration: number,
  maxIterations: number,
  shouldStop: () => string | null,
): string | null {
  if (iteration > maxIterations) return "iteration-cap";
  const guard = shouldStop();
  if (guard) return guard;
  try {
    ctx.budget.startIteration();
  } catch (error) {
    return `budget:${exceededLimit(error) ?? "iterations"}`;
  }
  return null;
}

/** A planner turn: assessments, a legality-checked plan change, and the actions chosen (cycle.ts). */
function plannerTurn(ctx: RunContext, input: CycleInput): ReturnType<typeof planCycle> {
  ctx.emit({ type: "phase", phase: "planning", detail: `iteration ${input.iteration}` });
  return ctx.inScope("planner", () => planCycle(ctx, input));
}

/**
 * The actions to run from the ready frontier: the planner's choice (the whole frontier when the
 * ids it chose are none of them ready); an empty choice stops the loop (Algorithm 2, line 5). When the planner asks for the report, the report is written only
 * when what it depends on has run: a pending dependency runs first (a `decision` event says so).
 * A stop when there is nothing to run.
 */
function chooseActions(
  ctx: RunContext,
  graph: PlanGraph,
  step: { actions: string[]; synthesize: boolean },
): { actions: PlanNode[] } | { stop: string } {
  const frontier = readyFrontier(graph).filter((n) => n.type !== "report" && n.type !== "outline");
  if (!step.synthesize) {
    if (frontier.length === 0) return { stop: "frontier-empty" };
    // An empty action set ends the loop (Algorithm 2, line 5); ids that are not ready run the frontier.
    if (step.actions.length === 0) return { stop: "no-actions" };
    const chosen = frontier.filter((n) => step.actions.includes(n.id));
    return { actions: chosen.length > 0 ? chosen : frontier };
  }
  const waiting = waitingForReport(graph);
  const needed = frontier.filter((n) => waiting.some((w) => w.id === n.id));
  if (waiting.length === 0 || needed.length === 0) return { stop: "planner-synthesize" };
  ctx.emit({
    type: "decision",
    decision: "continue",
    reason: `synthesis deferred: the report depends on ${waiting.length} pending node(s) (${waiting
      .map((n) => n.id)
      .join(", ")}); the ready ones run first`,
  });
  return { actions: needed };
}

/** The stop decision; whatever the report still waits for will not run now: pruned, with the stop's reason. */
function stopAndPrune(ctx: RunContext, run: GraphRun, stopReason: string): void {
  ctx.emit({ type: "decision", decision: "stop", reason: stopReason });
  const unrun = waitingForReport(run.graph);
  if (unrun.length === 0) return;
  run.graph = pruneWithReason(
    ctx,
    run.graph,
    unrun.map((n) => n.id),
    stopPruneReason(stopReason),
    "stop",
  );
  ctx.emit({ type: "plan-update", iteration: 0, graph: run.graph });
}

/**
 * The report node (Algorithm 1, line 11), once its dependencies have settled. No research (no
 * tool call, no evidence): the run fails instead of writing an empty report.
 */
async function writeReportNode(
  ctx: RunContext,
  run: GraphRun,
  input: {
    spec: TaskSpec;
    planned: PlannedOutline;
    persistent: string;
    language: string;
    stopReason: string;
  },
): Promise<ResearchOutcome> {
  const { graph } = run;
  requireResearch(ctx, { stopReason: input.stopReason });
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
  const doc = await writeGraphReport(ctx, { ...input, graph, results: run.results });
  requireResearch(ctx, { stopReason: input.stopReason, body: doc.body });
  if (report)
    ctx.emit({
      type: "node-end",
      nodeId: report.id,
      status: "done",
      summary: `${doc.references.length} references`,
    });
  return { stopReason: doc.stopReason, report: doc };
}
