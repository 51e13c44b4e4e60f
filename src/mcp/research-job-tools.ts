/**
 * Research for clients that keep a fixed request timeout (the SDK's 60 s by default): tools
 * that each answer at once. `research_start` starts a run and answers with its id;
 * `research_status` tells where it is; `research_result` gives the report once it has ended;
 * `research_cancel` cancels it; `refresh_start` starts a refresh of a finished run's report, a run
 * the same tools follow. The run belongs to the server: the client may go away and come
 * back, from another session too, with the run id.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { refreshMaxSearchesSchema } from "../runtime/refresh-definition.ts";
import { structuredResult } from "./context.ts";
import { reportOutputSchema, runStatusOutputSchema } from "./output-schemas.ts";
import type { ResearchJobs } from "./research-jobs.ts";
import { deepResearchInputSchema } from "./research-tool.ts";
import { askInBackground } from "./review-ask.ts";
import { followThroughReview } from "./review-flow.ts";
import { statusText } from "./review-tool.ts";
import { defineTool, type ToolDefinition } from "./tool-dispatch.ts";

const runIdInput = z.strictObject({
  runId: z
    .string()
    .trim()
    .min(1, "the run id is empty")
    .max(200)
    .describe("the run's id (or a unique prefix of it)"),
});

const refreshInput = runIdInput.extend({ maxSearches: refreshMaxSearchesSchema.optional() });

/** The start, status, result and cancel tools over `jobs` (`server`: the session that asks plan reviews). */
export function researchJobTools(server: McpServer, jobs: ResearchJobs): ToolDefinition[] {
  return [
    defineTool({
      name: "research_start",
      title: "Start deep research",
      description:
        "Start a deep-research run (as deep_research does) and answer at once with its runId. Then call research_status now and then (runs take minutes) and research_result when it is done. For clients whose requests time out.",
      inputSchema: deepResearchInputSchema,
      outputSchema: runStatusOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
      async call(args) {
        const job = await jobs.start(args);
        // A plan to review is asked of the user through elicitation, where the client takes it.
        const ask = args.reviewPlan ? askInBackground(server) : null;
        if (ask) void followThroughReview(jobs, job, { question: args.question, ask }).catch(() => {});
        const status = await jobs.status(job.runId);
        return structuredResult(status, statusText(status));
      },
    }),
    defineTool({
      name: "refresh_start",
      title: "Refresh a report",
      description:
        "Start a refresh of a finished research run's report: its cited pages are read again and its searches run again; only the sections whose evidence changed are rewritten, and a diff is written beside the new version. Answers at once with the refresh's runId (a run of its own): follow it with research_status and read the new version with research_result. With no change, no model is called. Refusing an unknown run, an unfinished one, a version that is not the latest, or a report another refresh is writing.",
      inputSchema: refreshInput,
      outputSchema: runStatusOutputSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      async call({ runId, maxSearches }) {
        const { job, refreshOf, version } = await jobs.refresh(runId, {
          ...(maxSearches === undefined ? {} : { maxSearches }),
        });
        const status = await jobs.status(job.runId);
        return structuredResult(status, `refresh of ${refreshOf}, version ${version}: ${statusText(status)}`);
      },
    }),
    defineTool({
      name: "research_status",
      title: "Research status",
      description:
        "Where a research run is: its status (running, awaiting-review, completed, failed, cancelled, interrupted), its last step, usage so far, and what to call next. A run started with reviewPlan that stopped after planning (awaiting-review) shows its plan (review: items with their ids, deadline): answer it with research_review. Answers at once.",
      inputSchema: runIdInput,
      outputSchema: runStatusOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      async call({ runId }) {
        const status = await jobs.status(runId);
        return structuredResult(status, statusText(status));
      },
    }),
    defineTool({
      name: "research_result",
      title: "Research result",
      description:
        "The report of a finished research run: Markdown with numbered citations, its title and references. While the run is still going it answers with an error saying so and its status (call research_status until done). Answers at once.",
      inputSchema: runIdInput,
      outputSchema: reportOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      async call({ runId }) {
        const answer = await jobs.result(runId);
        if ("status" in answer) {
          const { status } = answer;
          return {
            content: [{ type: "text", text: `no report: ${statusText(status)}` }],
            isError: true,
          };
        }
        return structuredResult(answer.report, answer.report.markdown);
      },
    }),
    defineTool({
      name: "research_cancel",
      title: "Cancel research",
      description:
        "Cancel a research run under way. It is recorded as cancelled with its events and can be resumed later (a run awaiting review of its plan has its plan rejected). Answers at once.",
      inputSchema: runIdInput,
      outputSchema: runStatusOutputSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      async call({ runId }) {
        const status = await jobs.cancel(runId);
        return structuredResult(status, statusText(status));
      },
    }),
  ];
}
