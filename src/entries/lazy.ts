/**
 * The async entry points of `dossier/server` and `dossier/mcp` as `dossier` itself exports them:
 * each loads its subpath's module (Hono, the MCP SDK) on its first call, so importing `dossier`
 * does not.
 */

import type { McpStdioOptions, McpStdioServer } from "../mcp/stdio.ts";
import type { RunningServer, StartServerOptions } from "../server/listen.ts";

/** Starts the HTTP server (see `dossier/server`); loads the server's modules on the first call. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const server = await import("../server/listen.ts");
  return server.startServer(options);
}

/** Serves MCP over stdio (see `dossier/mcp`); loads the MCP SDK on the first call. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioServer> {
  const mcp = await import("../mcp/stdio.ts");
  return mcp.serveMcpStdio(options);
}
