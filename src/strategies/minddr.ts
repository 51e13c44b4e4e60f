/**
 * The minddr strategy (seed: MindDR §3.1): a Planning agent splits the question into 3–8
 * independent subtasks; one DeepSearch agent per subtask runs concurrently, each in its own
 * context; their reasoning (XoT memory) and evidence (tool memory) go to the Report agent,
 * which outlines, writes each section in its own call with only the evidence relevant to it,
 * runs a coherence pass, and hands the draft to the shared citation pass and checks.
 */

import PQueue from "p-queue";
import { type DeepSearchResult, deepSearch } from "../agents/deep-searcher.ts";
import { planResearch, type ResearchPlan } from "../agents/planner.ts";
import type { ResearchTools } from "../agents/research-tools.ts";
import type { RunContext } from "../agents/run-context.ts";
import { XotMemory } from "../agents/xot-memory.ts";
import { exceededLimit } from "../core/budget.ts";
import { isDossierError } from "../core/errors.ts";
import { addNodes, type PlanGraph, setNodeStatus } from "../core/plan-graph.ts";
import type { Evidence } from "../core/source.ts";
import { explorationGuard } from "./exploration-budget.ts";
import { writeReport } from "./report-writer.ts";
import type { ResearchOutcome } from "./types.ts";

export type { ResearchOutcome } from "./types.ts";

/** Options of the minddr strategy. */
export interface MinddrOptions {
  tools: ResearchTools;
  /** Language code the report is written in. */
  language: string;
  /** Model-driven steps per DeepSearch agent after its seed step. Default 4. */
  maxSteps?: number;
  /** Share of tokens/cost/time exploration may use. Default 0.6. */
  explorationShare?: number;
}


/** Runs the minddr strategy in a run context. */
export async function runMinddr(ctx: RunContext, options: MinddrOptions): Promise<ResearchOutcome> {
  const xot = new XotMemory();
  const shouldStop = explorationGuard(ctx, options.explorationShare);
  let stopReason: string | null = null;

  ctx.emit({ type: "phase", phase: "planning" });
  const plan = await ctx.inScope("planner", () => planOrFallback(ctx, options));
  xot.append({ agent: "planner", kind: "rationale", text: plan.intent });
  ctx.emit({
    type: "task-framed",
    spec: {
      intent: plan.intent,
      title: plan.title,
      language: options.language,
      currentDate: ctx.currentDate,
      subtasks: plan.subtasks,
    },
  });

  let graph: PlanGraph = addNodes({ nodes: [] }, [
    ...plan.subtasks.map((s, i) => ({
      id: `T-${i + 1}`,
      type: "search" as const,
      title: s.title,
      goal: s.goal,
      deps: [],
      depth: 1,
    })),
    {
      id: `T-${plan.subtasks.length + 1}`,
      type: "report" as const,
      title: "Report",
      goal: "Write the cited report",
      deps: plan.subtasks.map((_, i) => `T-${i + 1}`),
      depth: 2,
    },
  ]);
  ctx.emit({ type: "plan-update", iteration: 0, graph });

  ctx.emit({ type: "phase", phase: "searching", detail: `${plan.subtasks.length} subtasks` });
  const queue = new PQueue({ concurrency: ctx.options.concurrency });
  const results = await Promise.all(
    plan.subtasks.map((subtask, i) =>
      queue.add(
        (): Promise<DeepSearchResult> =>
          ctx.inScope(`search:T-${i + 1}`, async () => {
            const nodeId = `T-${i + 1}`;
            ctx.emit({ type: "node-start", nodeId, nodeType: "search", title: subtask.title });
            graph = setNodeStatus(graph, nodeId, "running");
            // The agent checks the exploration guard before each model step; its seed step always runs.
            const result = await deepSearch(ctx, {
              nodeId,
              subtask,
              tools: options.tools,
              xot,
              language: options.language,
              ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
              shouldStop,
            });
            if (result.stopReason.startsWith("budget:") && !stopReason) stopReason = result.stopReason;
            const failed = result.evidence.length === 0;
            graph = setNodeStatus(graph, nodeId, failed ? "failed" : "done", {
              evidence: result.evidence.length,
            });
            ctx.emit({
              type: "node-end",
              nodeId,
              status: failed ? "failed" : "done",
              summary: `${result.evidence.length} evidence, ${result.toolCalls} tool calls (${result.failedCalls} failed), ${result.steps} steps, stop: ${result.stopReason}`,
            });
            return result;
          }),
      ),
    ),
  );
  const guard = shouldStop();
  if (!stopReason && guard) stopReason = guard;
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: stopReason ? `exploration stopped: ${stopReason}` : "all subtasks finished",
  });
  ctx.emit({ type: "plan-update", iteration: 1, graph });

  const reportNode = `T-${plan.subtasks.length + 1}`;
  ctx.emit({ type: "node-start", nodeId: reportNode, nodeType: "report", title: "Report" });
  const report = await writeReport(ctx, {
    title: plan.title,
    language: options.language,
    trace: xot.render(),
    evidence: ctx.evidence.evidence(),
    fallbackSections: results.map((r) => ({
      title: r.title,
      text: r.subReport,
      allowed: new Set(r.evidence.map((e: Evidence) => e.id)),
    })),
    stopReason: stopReason ?? "completed",
  });
  ctx.emit({
    type: "node-end",
    nodeId: reportNode,
    status: "done",
    summary: `${report.references.length} references`,
  });
  return { stopReason: stopReason ?? "completed", report };
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
      subtasks: [{ title: ctx.query.slice(0, 80), goal: ctx.query, queries: [ctx.query.slice(0, 200)] }],
    };
  }
}
