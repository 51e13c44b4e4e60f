/**
 * The `deep_research` MCP tool: a research run whose cited Markdown report is the result, as
 * text and as structured content.
 *
 * - Called as an MCP task (a client that supports tasks asks for one): the task is created and
 *   answered at once; the client polls `tasks/get` and reads the report with `tasks/result`,
 *   each a short request, however long the run takes. `tasks/cancel` cancels the run.
 * - Called plainly: the call is held open until the run ends, with progress notifications for
 *   its steps and a heartbeat while nothing else happens (a single model call can take
 *   minutes), so a client that resets its timeout on progress keeps waiting. Cancelling the
 *   request cancels the run. Clients that keep a fixed request timeout use `research_start`.
 *
 * In both, a client that goes away (its connection or session closes) leaves the run running:
 * the report is written as usual and `research_result` reads it later.
 *
 * With `reviewPlan` the run stops after its plan: where the client takes elicitation requests,
 * the user is asked to approve, edit or reject it (review-flow.ts) and the call goes on with the
 * run; otherwise the call ends with the plan awaiting review, for research_review.
 */

import { setImmediate } from "node:timers";
import { setTimeout as delay } from "node:timers/promises";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ResearchResult } from "../runtime/research-handle.ts";
import { createRunBodySchema } from "../server/schemas.ts";
import { textResult } from "./context.ts";
import { reportOutputSchema } from "./output-schemas.ts";
import { PROGRESS_SETTLE_MS, progressTo } from "./progress.ts";
import { type ResearchJob, type ResearchJobs, reportOutput } from "./research-jobs.ts";
import { askInBackground, askInRequest } from "./review-ask.ts";
import { followThroughReview, type ReviewFlowOutcome } from "./review-flow.ts";
import { statusText } from "./review-tool.ts";
import { TASK_POLL_MS, TASK_TTL_MS } from "./task-store.ts";
import { defineTool, type ToolDefinition } from "./tool-dispatch.ts";

/** The tool's input: a research request (the report is always Markdown, plus HTML and JSON on disk). */
export const deepResearchInputSchema = createRunBodySchema.omit({ formats: true });

/** The answer of a finished run: the report, or why there is none. */
export function reportResult(result: ResearchResult, question: string): CallToolResult {
  if (result.status !== "completed" || result.markdown === null) {
    const why = result.error ? `[${result.error.code}] ${result.error.message}` : result.stopReason;
    return textResult(`run ${result.runId} ${result.status}: ${why}`, true);
  }
  const structured = reportOutput(result.report, result, question);
  return {
    content: [
      { type: "text", text: result.markdown },
      {
        type: "resource_link",
        uri: structured.resources.md,
        name: `report ${result.runId}`,
        mimeType: "text/markdown",
        description: `The report of run ${result.runId} (also as report.html and report.json)`,
      },
    ],
    structuredContent: structured,
  };
}

/** The answer of a run followed through its plan review: its report, or why there is none yet. */
export function outcomeResult(outcome: ReviewFlowOutcome, question: string): CallToolResult {
  if (outcome.kind === "ended") return reportResult(outcome.result, question);
  const { status } = outcome;
  if (outcome.kind === "awaiting") {
    return textResult(
      `run ${status.runId} awaits review of its plan (${outcome.why}).\n${statusText(status)}`,
      true,
    );
  }
  const why = status.error ? `[${status.error.code}] ${status.error.message}` : (status.stopReason ?? "");
  return textResult(`run ${status.runId} ${status.status}: ${why}`, true);
}

/** Cancels the run `job` follows, as it is now: under way, or awaiting review (its plan rejected). */
function cancelRun(jobs: ResearchJobs, job: ResearchJob, reason: string): void {
  (jobs.latest(job.runId) ?? job).handle.cancel(reason);
  void jobs
    .status(job.runId)
    .then((s) => (s.status === "awaiting-review" ? jobs.cancel(job.runId, reason) : undefined))
    .catch(() => {});
}

/** The `deep_research` tool over `jobs`. */
export function deepResearchTool(server: McpServer, jobs: ResearchJobs): ToolDefinition {
  return defineTool({
    name: "deep_research",
    title: "Deep research",
    description:
      "Research an open question in depth: plan, search the web and/or the local corpus, read sources and write a long report in Markdown whose every citation [n] points to a retrieved passage. Takes minutes. Returns the report (structured: runId, title, markdown, references, resources). The call stays open until the run ends (progress is reported meanwhile) unless the client runs it as a task; a client with a fixed request timeout should use research_start, research_status and research_result instead.",
    inputSchema: deepResearchInputSchema,
    outputSchema: reportOutputSchema,
    annotations: { readOnlyHint: true, openWorldHint: true },
    async call(args, extra) {
      const onProgress = progressTo(extra, (n) => extra.sendNotification(n));
      const job = await jobs.start(args, onProgress ? { onProgress } : {});
      // The request's cancellation is the client's ask to cancel the run; a connection that
      // closes aborts the request too (the SDK aborts every handler), but only after it is gone.
      const onAbort = () =>
        setImmediate(() => {
          if (server.isConnected()) cancelRun(jobs, job, "the MCP client cancelled the request");
        });
      extra.signal.addEventListener("abort", onAbort, { once: true });
      try {
        const outcome = await followThroughReview(jobs, job, {
          question: args.question,
          ask: args.reviewPlan ? askInRequest(server, extra) : null,
          ...(onProgress ? { onProgress } : {}),
        });
        // Clients dispatch notifications a microtask late: a result read in the same chunk as
        // the last progress notifications would drop them, so let those go out on their own.
        if (onProgress) await delay(PROGRESS_SETTLE_MS);
        return outcomeResult(outcome, args.question);
      } finally {
        (jobs.latest(job.runId) ?? job).unfollow();
        extra.signal.removeEventListener("abort", onAbort);
      }
    },
    async callAsTask(args, extra) {
      const store = extra.taskStore;
      if (!store) throw new Error("no task store");
      const sessionId = extra.sessionId;
      // Progress of a task goes out on its own (not as part of the request, which is answered).
      const notify = progressTo(extra, (n) => server.server.notification(n));
      let taskId: string | null = null;
      const onProgress = (update: { progress: number; message: string }) => {
        notify?.(update);
        if (taskId !== null && !update.message.startsWith("working"))
          void jobs.tasks.note(taskId, update.message, sessionId).catch(() => {});
      };
      const job = await jobs.start(args, { onProgress });
      const task = await store.createTask({ ttl: TASK_TTL_MS, pollInterval: TASK_POLL_MS });
      taskId = task.taskId;
      jobs.tasks.onCancel(task.taskId, (reason) => cancelRun(jobs, job, reason));
      const finish = async (status: "completed" | "failed", result: CallToolResult) => {
        jobs.tasks.ended(task.taskId);
        (jobs.latest(job.runId) ?? job).unfollow();
        // A cancelled task is already ended; a gone session cannot be told: the result is kept.
        await store.storeTaskResult(task.taskId, status, result).catch(() => {});
      };
      void followThroughReview(jobs, job, {
        question: args.question,
        ask: args.reviewPlan ? askInBackground(server) : null,
        onProgress,
      }).then(
        (outcome) =>
          finish(
            outcome.kind === "ended" && outcome.result.status === "completed" ? "completed" : "failed",
            outcomeResult(outcome, args.question),
          ),
        (error: unknown) => finish("failed", textResult(`run ${job.runId} failed: ${String(error)}`, true)),
      );
      return { task };
    },
  });
}
