/**
 * The `ask`, `search` and `fetch` MCP tools, over the same calls as the HTTP API, each with its
 * output schema and structured content. Each reports progress like `deep_research` when the
 * client asks for it: `ask` its run's steps, and all three a heartbeat while nothing else
 * happens (an ask, a follow-up or a page read for a goal through a slow local model can keep one
 * call open past a client's 60 s request timeout).
 */

import { setTimeout as delay } from "node:timers/promises";
import { askBodySchema, fetchBodySchema, searchBodySchema } from "../server/schemas.ts";
import { fetchWith, searchWith } from "../server/tool-calls.ts";
import { type McpContext, structuredResult, textResult } from "./context.ts";
import { askOutputSchema, fetchOutputSchema, searchOutputSchema } from "./output-schemas.ts";
import { createProgressTracker, PROGRESS_SETTLE_MS, type ProgressTracker, progressTo } from "./progress.ts";
import { defineTool, type ToolDefinition, type ToolExtra } from "./tool-dispatch.ts";

/**
 * Runs a tool's work with progress for the request, when the client asked for it: the steps
 * the work reports to the tracker, and a heartbeat while nothing else is sent. The result waits
 * for the last notifications to go out first.
 */
async function withProgress<T>(
  context: McpContext,
  extra: ToolExtra,
  work: (tracker: ProgressTracker) => Promise<T>,
): Promise<T> {
  const send = progressTo(extra, (n) => extra.sendNotification(n));
  const tracker = createProgressTracker({
    ...(send ? { send } : {}),
    ...(context.heartbeatMs !== undefined ? { heartbeatMs: context.heartbeatMs } : {}),
  });
  try {
    return await work(tracker);
  } finally {
    tracker.stop();
    if (send) await delay(PROGRESS_SETTLE_MS);
  }
}

/** The `ask`, `search` and `fetch` tools. */
export function lookupTools(context: McpContext): ToolDefinition[] {
  const { dossier, runs } = context;
  return [
    defineTool({
      name: "ask",
      title: "Ask",
      description:
        "Answer a deep-search question that has a short answer (a name, a date, a number): plans goals, searches and reads in parallel, verifies, and returns the answer with numbered citations and the passages behind them.",
      inputSchema: askBodySchema,
      outputSchema: askOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
      async call(args, extra) {
        // Progress for the answering run's steps, and a heartbeat while a model call (minutes
        // on a slow local model) or a search is in flight, as for deep_research.
        const answer = await withProgress(context, extra, (tracker) =>
          runs.ask(args, extra.signal, (event) => tracker.event(event)),
        );
        if (!answer.answer)
          return textResult(`no answer (run ${answer.runId} ${answer.status}: ${answer.stopReason})`, true);
        const sources = answer.citations.map((c) => `[${c.number}] ${c.title} — ${c.locator}`);
        const text = [
          answer.answer,
          ...(sources.length ? ["", "Sources:", ...sources] : []),
          "",
          `(run ${answer.runId}${answer.verified ? ", verified" : ""})`,
        ].join("\n");
        const { runId, status, verified, citations, stopReason } = answer;
        return structuredResult(
          { runId, status, answer: answer.answer, verified, citations, stopReason },
          text,
        );
      },
    }),
    defineTool({
      name: "search",
      title: "Web search",
      description:
        "One web search with the configured providers (or one provider), a search of scholarly papers with provider `arxiv` or `openalex` (abstracts and authors), or a search of the local document corpus with provider `local`. Returns titles, URLs and snippets; web and paper results outside the source filter (`sourceFilter`, else the configured one) are dropped.",
      inputSchema: searchBodySchema,
      outputSchema: searchOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
      async call(args, extra) {
        const found = await withProgress(context, extra, () =>
          searchWith(dossier, args, context.env ? { env: context.env } : {}),
        );
        return structuredResult({ ...found });
      },
    }),
    defineTool({
      name: "fetch",
      title: "Read a page",
      description:
        "Read one web page (HTML, PDF, text or Markdown) as clean Markdown text. With a goal, the reader model reads it for that goal and returns verbatim evidence and a summary. A URL or redirect outside the source filter (`sourceFilter`, else the configured one) is refused (SOURCE_FILTERED) and never requested.",
      inputSchema: fetchBodySchema,
      outputSchema: fetchOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
      async call(args, extra) {
        // With a goal, the reader model reads the page: one call that a slow model keeps long.
        const page = await withProgress(context, extra, () => fetchWith(dossier, args));
        if (page.kind === "reading") return structuredResult({ ...page });
        return structuredResult(
          { ...page },
          `# ${page.title}\n\n${page.finalUrl}\n\n${page.text || `(no text: ${page.reason ?? "empty"})`}`,
        );
      },
    }),
  ];
}
