/**
 * The MCP server over standard input and output (`dossier mcp`): nothing but protocol messages
 * is written to stdout. It ends when stdin closes or `stop()` is called; runs under way are
 * then cancelled (recorded as cancelled, resumable).
 */

import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Dossier } from "../runtime/dossier.ts";
import { createRunManager } from "../server/run-manager.ts";
import { createMcpServer } from "./server.ts";

/** Options of {@link serveMcpStdio}. */
export interface McpStdioOptions {
  dossier: Dossier;
  /** Runs at once (default 2). */
  maxRuns?: number;
  env?: Record<string, string | undefined>;
  stdin?: Readable;
  stdout?: Writable;
}

/** A running stdio MCP server. */
export interface McpStdioServer {
  /** Settles when the client has gone (stdin closed) or `stop()` was called, and runs are recorded. */
  closed: Promise<void>;
  /** Cancels runs under way and closes the transport. */
  stop(reason?: string): Promise<void>;
}

/** Serves MCP over stdio. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const runs = createRunManager({ dossier: options.dossier, maxRuns: options.maxRuns ?? 2 });
  const server = createMcpServer({
    dossier: options.dossier,
    runs,
    ...(options.env ? { env: options.env } : {}),
  });
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let stopping: Promise<void> | null = null;
  const stop = (reason = "the MCP server stopped") => {
    stopping ??= (async () => {
      stdin.off("end", onEnd);
      await runs.cancelAll(reason);
      await server.close().catch(() => {});
      resolveClosed();
    })();
    return stopping;
  };
  const onEnd = () => void stop("the MCP client disconnected");
  stdin.once("end", onEnd);
  server.server.onclose = () => void stop("the MCP transport closed");
  await server.connect(transport);
  return { closed, stop };
}
