/**
 * The `ask`, `search` and `fetch` MCP tools, over the same calls as the HTTP API.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { askBodySchema, fetchBodySchema, searchBodySchema } from "../server/schemas.ts";
import { fetchWith, searchWith } from "../server/tool-calls.ts";
import { errorResult, type McpContext, textResult } from "./context.ts";

/** Registers `ask`, `search` and `fetch`. */
export function registerTools(server: McpServer, context: McpContext): void {
  const { dossier, runs } = context;
  server.registerTool(
    "ask",
    {
      title: "Ask",
      description:
        "Answer a deep-search question that has a short answer (a name, a date, a number): plans goals, searches and reads in parallel, verifies, and returns the answer with numbered citations and the passages behind them.",
      inputSchema: askBodySchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args, extra) => {
      try {
        const answer = await runs.ask(args, extra.signal);
        if (!answer.answer)
          return textResult(`no answer (run ${answer.runId} ${answer.status}: ${answer.stopReason})`, true);
        const sources = answer.citations.map((c) => `[${c.number}] ${c.title} — ${c.locator}`);
        return textResult(
          [
            answer.answer,
            ...(sources.length ? ["", "Sources:", ...sources] : []),
            "",
            `(run ${answer.runId}${answer.verified ? ", verified" : ""})`,
          ].join("\n"),
        );
      } catch (error) {
        return errorResult(error);
      }
    },
  );
  server.registerTool(
    "search",
    {
      title: "Web search",
      description:
        "One web search with the configured providers (or one provider), a search of scholarly papers with provider `arxiv` or `openalex` (abstracts and authors), or a search of the local document corpus with provider `local`. Returns titles, URLs and snippets as JSON.",
      inputSchema: searchBodySchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args) => {
      try {
        return textResult(
          JSON.stringify(await searchWith(dossier, args, context.env ? { env: context.env } : {}), null, 2),
        );
      } catch (error) {
        return errorResult(error);
      }
    },
  );
  server.registerTool(
    "fetch",
    {
      title: "Read a page",
      description:
        "Read one web page (HTML, PDF, text or Markdown) as clean Markdown text. With a goal, the reader model reads it for that goal and returns verbatim evidence and a summary.",
      inputSchema: fetchBodySchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args) => {
      try {
        const page = await fetchWith(dossier, args);
        if (page.kind === "reading") return textResult(JSON.stringify(page, null, 2));
        return textResult(
          `# ${page.title}\n\n${page.finalUrl}\n\n${page.text || `(no text: ${page.reason ?? "empty"})`}`,
        );
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
