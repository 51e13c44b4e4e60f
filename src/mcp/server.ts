/**
 * The Dossier MCP server: tools `deep_research`, `ask`, `search` and `fetch`, and finished
 * reports as resources. One server per transport (stdio, or one streamable-HTTP session).
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import pkg from "../../package.json" with { type: "json" };
import type { McpContext } from "./context.ts";
import { registerDeepResearchTool } from "./research-tool.ts";
import { registerReportResources } from "./resources.ts";
import { registerTools } from "./tools.ts";

/** Builds an MCP server over `context`. */
export function createMcpServer(context: McpContext): McpServer {
  const server = new McpServer(
    { name: "dossier", version: pkg.version },
    {
      capabilities: { tools: {}, resources: {}, logging: {} },
      instructions:
        "Dossier is a deep-research engine. Use deep_research for open questions that need a long, cited report (it takes minutes), ask for questions with a short answer, search and fetch for single lookups. Finished reports are resources at dossier://runs/<id>/report.md.",
    },
  );
  registerDeepResearchTool(server, context);
  registerTools(server, context);
  registerReportResources(server, context);
  return server;
}
