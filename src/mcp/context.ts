/**
 * What the MCP tools and resources work through: the Dossier, the server's run manager (its
 * run limit is shared with the HTTP API when MCP is mounted on the server), the runs started
 * over MCP and the environment; and how a tool's result or failure reads.
 */

import { DossierError } from "../core/errors.ts";
import type { Dossier } from "../runtime/dossier.ts";
import { apiMessage } from "../server/errors.ts";
import type { RunManager } from "../server/run-manager.ts";
import type { ResearchJobs } from "./research-jobs.ts";

/** The MCP server's surroundings. */
export interface McpContext {
  dossier: Dossier;
  runs: RunManager;
  /** Environment variables (search endpoint overrides). */
  env?: Record<string, string | undefined>;
  /**
   * The runs started over MCP, shared by the sessions of one server (default: one registry per
   * MCP server).
   */
  jobs?: ResearchJobs;
  /** Progress heartbeat while a run reports nothing else (ms, default 15 000). */
  heartbeatMs?: number;
}

/** A tool result carrying one text. */
export function textResult(text: string, isError = false) {
  return { content: [{ type: "text" as const, text }], ...(isError ? { isError: true } : {}) };
}

/** A tool result with structured content and its text. */
export function structuredResult<T extends Record<string, unknown>>(
  structured: T,
  text = JSON.stringify(structured, null, 2),
) {
  return { content: [{ type: "text" as const, text }], structuredContent: structured };
}

/** The stable code of an error (`INTERNAL` when it has none). */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : "INTERNAL";
}

/**
 * A failed tool call as a tool result the model can read: `error [CODE]: message`, phrased in
 * the tools' argument names (the API's), not in command-line flags.
 */
export function errorResult(error: unknown) {
  const message =
    error instanceof DossierError
      ? apiMessage(error)
      : error instanceof Error
        ? error.message
        : String(error);
  return textResult(`error [${errorCode(error)}]: ${message}`, true);
}
