/**
 * The `deep_research` MCP tool: a research run whose events become progress notifications and
 * whose cited Markdown report is the result. Cancelling the request cancels the run (it is
 * recorded as cancelled and can be resumed).
 */

import { setTimeout as delay } from "node:timers/promises";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { DossierEvent } from "../core/events.ts";
import { createRunBodySchema } from "../server/schemas.ts";
import { errorResult, type McpContext, textResult } from "./context.ts";

/** Pause between the last progress notification and the result (ms). */
const PROGRESS_SETTLE_MS = 100;

/** The tool's input: a research request (the report is always Markdown, plus HTML and JSON on disk). */
export const deepResearchInputSchema = createRunBodySchema.omit({ formats: true });

/** A one-line progress message for the events worth reporting, else null. */
export function progressMessage(event: DossierEvent): string | null {
  switch (event.type) {
    case "run-start":
      return `started (${event.strategy})`;
    case "phase":
      return event.detail ? `${event.phase}: ${event.detail}` : event.phase;
    case "node-start":
      return `researching: ${event.title}`;
    case "node-end":
      return `${event.status === "done" ? "done" : "failed"}: ${event.nodeId}`;
    case "section-written":
      return `wrote section: ${event.title}`;
    case "warning":
      return `warning: ${event.message}`;
    case "report-ready":
      return "report ready";
    case "run-end":
      return `run ${event.status} (${event.stopReason})`;
    default:
      return null;
  }
}

/** Registers `deep_research`. */
export function registerDeepResearchTool(server: McpServer, context: McpContext): void {
  server.registerTool(
    "deep_research",
    {
      title: "Deep research",
      description:
        "Research an open question in depth: plan, search the web and/or the local corpus, read sources and write a long report in Markdown whose every citation [n] points to a retrieved passage. Takes minutes; progress is reported while it runs. Returns the report.",
      inputSchema: deepResearchInputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args, extra) => {
      try {
        const handle = await context.runs.start(args, { signal: extra.signal });
        const token = extra._meta?.progressToken;
        for await (const event of handle) {
          const message = token === undefined ? null : progressMessage(event);
          if (message === null || extra.signal.aborted) continue;
          await extra
            .sendNotification({
              method: "notifications/progress",
              params: { progressToken: token!, progress: event.seq, message },
            })
            .catch(() => {});
        }
        const result = await handle.done;
        // Clients dispatch notifications a microtask late: a result read in the same chunk as
        // the last progress notifications would drop them, so let those go out on their own.
        if (token !== undefined) await delay(PROGRESS_SETTLE_MS);
        if (result.status !== "completed" || result.markdown === null) {
          const why = result.error ? `[${result.error.code}] ${result.error.message}` : result.stopReason;
          return textResult(`run ${result.runId} ${result.status}: ${why}`, true);
        }
        return {
          content: [
            { type: "text" as const, text: result.markdown },
            {
              type: "resource_link" as const,
              uri: `dossier://runs/${result.runId}/report.md`,
              name: `report ${result.runId}`,
              mimeType: "text/markdown",
              description: `The report of run ${result.runId} (also as report.html and report.json)`,
            },
          ],
        };
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
