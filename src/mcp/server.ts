/**
 * The Dossier MCP server: tools `deep_research` (also as an MCP task), `research_start`,
 * `research_status`, `research_result`, `research_cancel`, `research_review` (a plan awaiting
 * review; elicitation asks it where the client supports it), `ask`, `search` and `fetch`, and
 * finished reports as resources. One server per transport (stdio, or one streamable-HTTP
 * session); the runs it starts belong to `context.jobs`, shared by a route's sessions.
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import pkg from "../../package.json" with { type: "json" };
import type { McpContext } from "./context.ts";
import { researchJobTools } from "./research-job-tools.ts";
import { createResearchJobs } from "./research-jobs.ts";
import { deepResearchTool } from "./research-tool.ts";
import { registerReportResources } from "./resources.ts";
import { researchReviewTool } from "./review-tool.ts";
import { serveTools } from "./tool-dispatch.ts";
import { lookupTools } from "./tools.ts";

const INSTRUCTIONS =
  "Dossier is a deep-research engine. For open questions that need a long, cited report (runs take minutes): deep_research, which stays open until the report is ready (or runs as a task where the client supports tasks); or research_start, then research_status now and then, then research_result — each answers at once. With reviewPlan: true a run stops after planning for the user to approve, edit or reject the plan (asked through elicitation where the client supports it; else research_status shows the plan and research_review answers it). ask answers questions with a short answer; search and fetch do single lookups. Finished reports are resources at dossier://runs/<id>/report.md.";

/** Builds an MCP server over `context`. */
export function createMcpServer(context: McpContext): McpServer {
  const jobs = context.jobs ?? createResearchJobs(context);
  const server = new McpServer(
    { name: "dossier", version: pkg.version },
    {
      capabilities: {
        tools: {},
        resources: {},
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: jobs.tasks,
      instructions: INSTRUCTIONS,
    },
  );
  serveTools(server, [
    deepResearchTool(server, jobs),
    ...researchJobTools(server, jobs),
    researchReviewTool(jobs),
    ...lookupTools(context),
  ]);
  registerReportResources(server, context);
  // A registry made for this server alone ends with it.
  if (!context.jobs) {
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      jobs.close();
    };
  }
  return server;
}
