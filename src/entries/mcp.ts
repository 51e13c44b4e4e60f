/**
 * `dossier/mcp`: Dossier as an MCP server — `createMcpServer` (tools, resources and prompts on
 * an SDK `McpServer`, for your own transport) and `serveMcpStdio` (the stdio server
 * `dossier mcp` runs). The MCP SDK loads with this entry point, not with `dossier`.
 */

// First: an unsupported Node is refused with a clear message, not a module resolution error.
import "../core/node-check.ts";

export type { McpContext } from "../mcp/context.ts";
export { createMcpServer } from "../mcp/server.ts";
export { type McpStdioOptions, type McpStdioServer, serveMcpStdio } from "../mcp/stdio.ts";
