/**
 * The minddr strategy (seed: MindDR §3.1): a Planning agent analyses the intent and splits the
 * question into 3–8 independent subtasks; one DeepSearch agent per subtask runs concurrently,
 * each in its own context but reading the shared XoT memory (the planner's rationale and the
 * other agents' findings); the Report agent reads the XoT memory and the tool memory (all
 * evidence), outlines, and either writes each section in its own call with the sub-reports and
 * the evidence relevant to it, and the report's frame alongside them from what each section
 * writer was given (`report: "sections"`; `frame: "after"`: by a coherence pass over the whole
 * draft once it is written), or writes the whole report in one call (`report: "single-pass"`,
 * the paper's; its Report agent has no editor pass after it, §3.1);
 * the draft goes through the shared citation pass and checks. A DeepSearch agent is compact
 * (`deepSearch: "compact"`: seed queries, a trace rebuilt from state) or the paper's appended
 * ReAct trajectory (`"appended"`). Every XoT entry is an `xot-add` event.
 *
 * Fallbacks, each a `warning` event, so no single role's failure ends a run without a report:
 * - planner fails → the question is researched as one subtask (`PLAN_FALLBACK`);
 * - a search step fails → that agent stops and reports what it has (`SEARCH_STEP_FALLBACK`);
 * - the page reader fails → the page stays unread, the agent goes on (`READER_FALLBACK`);
 * - a sub-report fails → an extractive list of the agent's best evidence (`SUB_REPORT_FALLBACK`);
 * - a DeepSearch agent fails unexpectedly → it counts as finding nothing (`SEARCH_AGENT_FAILED`);
 * - the outline fails → the report is made of the sub-reports (`OUTLINE_FALLBACK`; single
 *   pass: the report is written without an outline);
 * - the single-pass writer fails → the report is made of the sub-reports (`REPORT_FALLBACK`);
 * - a section writer fails → an extractive summary of its evidence (`SECTION_FALLBACK`);
 * - the frame (or coherence) pass fails → no introduction or conclusion (`COHERENCE_SKIPPED`).
 */

import PQueue from "p-queue";
import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import { addNodes, type PlanGraph, setNodeStatus } from "../../core/plan-graph.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { type Finding, writeReport } from "../../kit/report-writer.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ResearchOutcome } from "../types.ts";
import { appendedSearch } from "./appended-searcher.ts";
import { type DeepSearchOptions, type DeepSearchResult, deepSearch } from "./deep-searcher.ts";
import { planResearch, type ResearchPlan, type Subtask } from "./planner.ts";
import { reviewSubtasks } from "./review.ts";
import type { DeepSearchMode, ReportMode } from "./settings.ts";
import { writeSinglePassReport } from "./single-pass-report.ts";
import { XotMemory } from "./xot-memory.ts";

export type { ResearchOutcome } from "../types.ts";

/** Options of the minddr strategy. */
export interface MinddrOptions {
  tools: ResearchTools;
  /** Language code the report is written in. */
  language: string;
  /**
   * Model-driven steps per DeepSearch agent (after its seed step in compact mode). Default 12
   * (compact) or 30 (appended); the budget may end it sooner.
   */
  maxSteps?: number;
  /** The DeepSearch agent: compact (default) or the paper's appended trajectory. */
  deepSearch?: DeepSearchMode;
  /** The Report agent: section by section (default) or the paper's single pass. */
  report?: ReportMode;
  /**
   * Sections report: the title, introduction and conclusion written alongside the sections
   * (default) or after them by the coherence pass, which reads the whole draft.
   */
  frame?: "alongside" | "after";
  /** The searcher model's context window in tokens, for the appended agent (default: known, else 128K). */
  contextWindow?: number;
  /** Share of tokens/cost/time exploration may use. Default 0.6. */
  explorationShare?: number;
}

/** Runs the minddr strategy in a run context. */
export async function runMinddr(ctx: RunContext, options: MinddrOptions): Promise<ResearchOutcome> {
  const xot = new XotMemory({ onAppend: (entry) => ctx.emit({ type: "xot-add", ...entry }) });
  const shouldStop = explorationGuard(ctx, options.explorationShare);
  // 1. Planning: intent, constraints and 3–8 independent subtasks (§3.1).
  const plan = await planning(ctx, options, xot);
  const run: SearchState = { graph: initialGraph(plan.subtasks), stopReason: null };
  ctx.emit({ type: "plan-update", iteration: 0, graph: run.graph });
  // 2. One DeepSearch agent per subtask, concurrently, over the shared XoT memory.
  ctx.emit({ type: "phase", phase: "searching", detail: `${plan.subtasks.length} subtasks` });
  const queue = new PQueue({ concurrency: ctx.options.concurrency });
  const results = await Promise.all(
    plan.subtasks.map((subtask, i) =>
      queue.add(() => searchSubtask(ctx, options, { subtask, index: i, xot, shouldStop, run })),
    ),
  );
  const guard = shouldStop();
  if (!run.stopReason && guard) run.stopReason = guard;
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: run.stopReason ? `exploration stopped: ${run.stopReason}` : "all subtasks finished",
  });
  ctx.emit({ type: "plan-update", iteration: 1, graph: run.graph });
  // 3. The Report agent over the XoT and tool memories.
  const stopReason = run.stopReason ?? "completed";
  // No research (no tool call, no evidence): the run fails instead of writing an empty report.
  requireResearch(ctx, { stopReason });
  return { stopReason, report: await reportAgent(ctx, options, { plan, xot, results, stopReason }) };
}

/** The plan graph as the agents move it, and the first budget limit one of them reached. */
interface SearchState {
  graph: PlanGraph;
  stopReason: string | null;
}

/** The Planning agent: the plan (or its fallback), its rationale in the XoT memory, the framed task. */
async function planning(ctx: RunContext, options: MinddrOptions, xot: XotMemory): Promise<ResearchPlan> {
  ctx.emit({ type: "phase", phase: "planning" });
  const plan = await ctx.inScope("planner", async () => {
    // With `reviewPlan` the run stops here until the subtasks are reviewed (review.ts).
    const p = reviewSubtasks(ctx, await planOrFallback(ctx, options));
    xot.append({ agent: "planner", kind: "rationale", text: rationale(p) });
    return p;
  });
  ctx.emit({
    type: "task-framed",
    spec: {
      intent: plan.intent,
      title: plan.title,
      language: options.language,
      currentDate: ctx.currentDate,
      constraints: plan.constraints,
      requiredOutputs: plan.requiredOutputs,
      subtasks: plan.subtasks,
    },
  });
  return plan;
}

/** One DeepSearch agent on its subtask, as node `T-<i+1>` of the plan graph. */
function searchSubtask(
  ctx: RunContext,
  options: MinddrOptions,
  input: {
    subtask: Subtask;
    index: number;
    xot: XotMemory;
    shouldStop: () => string | null;
    run: SearchState;
  },
): Promise<DeepSearchResult> {
  const { subtask, xot, shouldStop, run } = input;
  const nodeId = `T-${input.index + 1}`;
  return ctx.inScope(`search:${nodeId}`, async () => {
    ctx.emit({ type: "node-start", nodeId, nodeType: "search", title: subtask.title });
    run.graph = setNodeStatus(run.graph, nodeId, "running");
    // The agent checks the exploration guard before each model step; its seed step always runs.
    const result = await searchOrNothing(ctx, nodeId, subtask, () =>
      runAgent(ctx, options, {
        nodeId,
        subtask,
        tools: options.tools,
        xot,
        language: options.language,
        ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
        shouldStop,
      }),
    );
    if (result.stopReason.startsWith("budget:") && !run.stopReason) run.stopReason = result.stopReason;
    const failed = result.evidence.length === 0;
    run.graph = setNodeStatus(run.graph, nodeId, failed ? "failed" : "done", {
      evidence: result.evidence.length,
    });
    ctx.emit({
      type: "node-end",
      nodeId,
      status: failed ? "failed" : "done",
      summary: `${result.evidence.length} evidence, ${result.toolCalls} tool calls (${result.failedCalls} failed), ${result.steps} steps, stop: ${result.stopReason}`,
    });
    return result;
  });
}

/** The Report agent: outline, sections, coherence pass and the citation checks, as the last node. */
async function reportAgent(
  ctx: RunContext,
  options: MinddrOptions,
  input: { plan: ResearchPlan; xot: XotMemory; results: readonly DeepSearchResult[]; stopReason: string },
) {
  const { plan, xot, results, stopReason } = input;
  const reportNode = `T-${plan.subtasks.length + 1}`;
  ctx.emit({ type: "node-start", nodeId: reportNode, nodeType: "report", title: "Report" });
  const common = {
    title: plan.title,
    language: options.language,
    trace: xot.render(),
    spec: { constraints: plan.constraints, requiredOutputs: plan.requiredOutputs },
    fallbackSections: results.map((r) => ({
      title: r.title,
      text: r.subReport,
      allowed: new Set(r.evidence.map((e) => e.id)),
    })),
    stopReason,
  };
  const report =
    options.report === "single-pass"
      ? await writeSinglePassReport(ctx, common)
      : await writeReport(ctx, {
          ...common,
          evidence: ctx.evidence.evidence(),
          findings: subReportFindings(results),
          // Issued with the section calls: no model-call level after them.
          frame: options.frame ?? "alongside",
        });
  requireResearch(ctx, { stopReason, body: report.body });
  ctx.emit({
    type: "node-end",
    nodeId: reportNode,
    status: "done",
    summary: `${report.references.length} references`,
  });
  return report;
}

/** The DeepSearch agent the options choose. */
function runAgent(
  ctx: RunContext,
  options: MinddrOptions,
  agent: DeepSearchOptions,
): Promise<DeepSearchResult> {
  if (options.deepSearch !== "appended") return deepSearch(ctx, agent);
  const window = options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow };
  return appendedSearch(ctx, { ...agent, ...window });
}

/** The sub-reports as findings for the writers: each writer sees the ones relevant to its section. */
export function subReportFindings(results: readonly DeepSearchResult[]): Finding[] {
  return results
    .filter((r) => r.evidence.length > 0 && r.subReport.trim())
    .map((r) => ({ label: `sub-report ${r.nodeId}: ${r.title}`, text: r.subReport }));
}

function rationale(plan: ResearchPlan): string {
  return [
    plan.intent,
    ...(plan.constraints.length ? [`Constraints: ${plan.constraints.join("; ")}`] : []),
    // Titles only: every agent's prompt carries this catalogue, and each agent knows its own goal.
    `Subtasks: ${plan.subtasks.map((s, i) => `T-${i + 1} ${s.title}`).join("; ")}`,
  ].join("\n");
}

function initialGraph(subtasks: readonly Subtask[]): PlanGraph {
  return addNodes({ nodes: [] }, [
    ...subtasks.map((s, i) => ({
      id: `T-${i + 1}`,
      type: "search" as const,
      title: s.title,
      goal: s.goal,
      deps: [],
      depth: 1,
    })),
    {
      id: `T-${subtasks.length + 1}`,
      type: "report" as const,
      title: "Report",
      goal: "Write the cited report",
      deps: subtasks.map((_, i) => `T-${i + 1}`),
      depth: 2,
    },
  ]);
}

/** Runs one agent; an unexpected failure (not cancellation) becomes an empty result. */
async function searchOrNothing(
  ctx: RunContext,
  nodeId: string,
  subtask: Subtask,
  run: () => Promise<DeepSearchResult>,
): Promise<DeepSearchResult> {
  try {
    return await run();
  } catch (error) {
    if (isDossierError(error, "CANCELLED") || ctx.signal.aborted) throw error;
    const code = isDossierError(error) ? error.code : "error";
    ctx.emit({
      type: "warning",
      code: "SEARCH_AGENT_FAILED",
      message: `search agent ${nodeId} failed (${code}); going on without its findings`,
    });
    const noFindings = `No findings for "${subtask.title}": the search agent failed (${code}).`;
    return {
      nodeId,
      title: subtask.title,
      subReport: noFindings,
      evidence: [],
      steps: 0,
      toolCalls: 0,
      failedCalls: 0,
      stopReason: `error:${code}`,
    };
  }
}

async function planOrFallback(ctx: RunContext, options: MinddrOptions): Promise<ResearchPlan> {
  try {
    return await planResearch(ctx, { language: options.language, tools: options.tools.available });
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    const limit = exceededLimit(error);
    ctx.emit({
      type: "warning",
      code: limit ? "BUDGET_EXCEEDED" : "PLAN_FALLBACK",
      message: `planner failed (${isDossierError(error) ? error.code : "error"}); researching the question as a single subtask`,
    });
    return {
      intent: ctx.query,
      title: ctx.query.length > 90 ? `${ctx.query.slice(0, 87)}…` : ctx.query,
      constraints: [],
      requiredOutputs: [],
      subtasks: [{ title: ctx.query.slice(0, 80), goal: ctx.query, queries: [ctx.query.slice(0, 200)] }],
    };
  }
}
