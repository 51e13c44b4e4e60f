/**
 * How a plan review is put to the user of an MCP session: an `elicitation/create` request
 * (form mode), sent within the tool call that waits for the run (`deep_research`, so it goes
 * with that call's stream), or on its own for a run that goes on after its call answered
 * (`research_start`, a task). Null when the client did not declare form elicitation.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { canElicit } from "./plan-elicitation.ts";
import type { AskReview } from "./review-flow.ts";
import type { ToolExtra } from "./tool-dispatch.ts";

/** Asks on its own (not within a request), or null when the client takes no form elicitation. */
export function askInBackground(server: McpServer): AskReview | null {
  if (!canElicit(server.server.getClientCapabilities())) return null;
  return (params, { signal, timeoutMs }) => server.server.elicitInput(params, { signal, timeout: timeoutMs });
}

/** Asks within the tool call `extra` answers (its cancellation withdraws the form), or null. */
export function askInRequest(server: McpServer, extra: ToolExtra): AskReview | null {
  if (!canElicit(server.server.getClientCapabilities())) return null;
  return (params, { signal, timeoutMs }) =>
    extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, {
      signal: AbortSignal.any([signal, extra.signal]),
      timeout: timeoutMs,
    });
}
