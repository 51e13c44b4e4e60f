/**
 * What the MCP tools and resources work through: the Dossier, the server's run manager (its
 * run limit is shared with the HTTP API when MCP is mounted on the server) and the environment.
 */

import { DossierError } from "../core/errors.ts";
import type { Dossier } from "../runtime/dossier.ts";
import { apiMessage } from "../server/errors.ts";
import type { RunManager } from "../server/run-manager.ts";

/** The MCP server's surroundings. */
export interface McpContext {
  dossier: Dossier;
  runs: RunManager;
  /** Environment variables (search endpoint overrides). */
  env?: Record<string, string | undefined>;
}

/** A tool result carrying one text. */
export function textResult(text: string, isError = false) {
  return { content: [{ type: "text" as const, text }], ...(isError ? { isError: true } : {}) };
}

/**
 * A failed tool call as a tool result the model can read: `error [CODE]: message`, phrased in
 * the tools' argument names (the API's), not in command-line flags.
 */
export function errorResult(error: unknown) {
  const code = (error as { code?: unknown })?.code;
  const message =
    error instanceof DossierError
      ? apiMessage(error)
      : error instanceof Error
        ? error.message
        : String(error);
  return textResult(`error [${typeof code === "string" ? code : "INTERNAL"}]: ${message}`, true);
}
