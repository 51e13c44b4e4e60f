/**
 * The MCP server over standard input and output (`dossier mcp`): nothing but protocol messages
 * is written to stdout. When the client goes away (stdin closes) the runs under way go on until
 * they end — their reports are written as usual — and then it ends; `stop()` (SIGINT, SIGTERM)
 * cancels them instead (recorded as cancelled, resumable).
 */

import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Dossier } from "../runtime/dossier.ts";
import { createRunManager } from "../server/run-manager.ts";
import { createResearchJobs } from "./research-jobs.ts";
import { createMcpServer } from "./server.ts";

/** Options of {@link serveMcpStdio}. */
export interface McpStdioOptions {
  dossier: Dossier;
  /** Runs at once (default 2). */
  maxRuns?: number;
  env?: Record<string, string | undefined>;
  stdin?: Readable;
  stdout?: Writable;
  /** Progress heartbeat while a run reports nothing else (ms, default 15 000). */
  heartbeatMs?: number;
  /** Told one line when the client has gone while runs are under way (for stderr). */
  onNotice?: (line: string) => void;
}

/** A running stdio MCP server. */
export interface McpStdioServer {
  /**
   * Settles when the client has gone (stdin closed) and the runs under way have ended, or
   * `stop()` was called and the runs are recorded.
   */
  closed: Promise<void>;
  /** Cancels runs under way and closes the transport. */
  stop(reason?: string): Promise<void>;
}

/** Serves MCP over stdio. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const runs = createRunManager({ dossier: options.dossier, maxRuns: options.maxRuns ?? 2 });
  const context = {
    dossier: options.dossier,
    runs,
    ...(options.env ? { env: options.env } : {}),
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
  };
  const jobs = createResearchJobs(context);
  const server = createMcpServer({ ...context, jobs });
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
      jobs.close();
      resolveClosed();
    })();
    return stopping;
  };
  let leaving = false;
  // The client has gone: its runs are not cancelled, they end on their own.
  const leave = async () => {
    if (leaving) return;
    leaving = true;
    const under = runs.active().flatMap((id) => runs.handle(id)?.done ?? []);
    if (under.length > 0) {
      options.onNotice?.(
        `the MCP client has gone; ${under.length} run(s) under way go on until they end (SIGTERM cancels them)`,
      );
    }
    await Promise.allSettled(under);
    await stop("the MCP client disconnected");
  };
  const onEnd = () => void leave();
  stdin.once("end", onEnd);
  server.server.onclose = () => void leave();
  await server.connect(transport);
  return { closed, stop };
}
