/**
 * The async entry points of `dossier/server` and `dossier/mcp` as `dossier` itself exports them:
 * each loads its subpath's module (Hono, the MCP SDK) on its first call, so importing `dossier`
 * does not. Likewise `indexDirectory`, which loads the ingest pipeline (extractors for HTML,
 * Markdown, PDF and text, the chunker, the folder walk) on its first call.
 */

import type { McpStdioOptions, McpStdioServer } from "../mcp/stdio.ts";
import type { RunningServer, StartServerOptions } from "../server/listen.ts";
import type { IndexDirectoryOptions } from "../tools/corpus/ingest.ts";
import type { IndexSummary } from "../tools/corpus/types.ts";

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

/**
 * Indexes the folder `options.root` into `options.index`; returns what was done (see
 * tools/corpus/ingest.ts). Loads the ingest pipeline on the first call.
 */
export async function indexDirectory(options: IndexDirectoryOptions): Promise<IndexSummary> {
  const ingest = await import("../tools/corpus/ingest.ts");
  return ingest.indexDirectory(options);
}
