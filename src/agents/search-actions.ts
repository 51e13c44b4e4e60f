/**
 * The actions a search agent may take, as zod schemas limited to the tools the run allows, and
 * their execution through the research tools (results recorded as evidence).
 */

import { z } from "zod";
import { timeRangeSchema } from "../tools/types.ts";
import { recordLocalResults, recordPageReading, recordSearchResults } from "./evidence-recorder.ts";
import type { Observation } from "./observation.ts";
import type { ResearchToolName, ResearchTools } from "./research-tools.ts";
import type { RunContext } from "./run-context.ts";

const webSearch = z.object({
  tool: z.literal("web_search"),
  query: z.string().min(2).describe("a web search query"),
  timeRange: timeRangeSchema.optional().describe("limit to results from the last day/week/month/year"),
});
const readPage = z.object({
  tool: z.literal("read_page"),
  url: z.url().describe("a URL seen in earlier results"),
  goal: z.string().min(3).describe("what to look for on the page"),
});
const localSearch = z.object({
  tool: z.literal("local_search"),
  query: z.string().min(2).describe("a query over the user's own documents"),
});

/** One action. */
export type SearchAction = z.infer<typeof webSearch> | z.infer<typeof readPage> | z.infer<typeof localSearch>;

const BY_NAME = { web_search: webSearch, read_page: readPage, local_search: localSearch } as const;

/** The action schema for the tools a run allows. */
export function actionSchemaFor(tools: readonly ResearchToolName[]): z.ZodType<SearchAction> {
  const members = tools.map((t) => BY_NAME[t]);
  if (members.length === 1) return members[0]! as z.ZodType<SearchAction>;
  return z.discriminatedUnion(
    "tool",
    members as unknown as [typeof webSearch, typeof readPage],
  ) as z.ZodType<SearchAction>;
}

/** How an action reads in a trace. */
export function describeAction(a: SearchAction): string {
  switch (a.tool) {
    case "web_search":
      return `web_search "${a.query}"${a.timeRange ? ` (${a.timeRange})` : ""}`;
    case "read_page":
      return `read_page ${a.url} for "${a.goal}"`;
    case "local_search":
      return `local_search "${a.query}"`;
  }
}

/** Runs one action and records its evidence; never throws. */
export async function runAction(
  ctx: RunContext,
  tools: ResearchTools,
  action: SearchAction,
  topK: number,
): Promise<Observation> {
  const label = describeAction(action);
  switch (action.tool) {
    case "web_search": {
      const r = await tools.webSearch(action.query, {
        topK,
        ...(action.timeRange ? { timeRange: action.timeRange } : {}),
      });
      if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
      const evidence = recordSearchResults(ctx, r.value, action.query, r.callId);
      return {
        action: label,
        ok: true,
        evidence,
        lines: r.value.map((x, i) => `${i + 1}. ${x.title} — ${x.url}`),
      };
    }
    case "read_page": {
      const r = await tools.readPage(action.url, action.goal);
      if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
      const evidence = recordPageReading(ctx, r.value, action.goal, r.callId);
      return {
        action: label,
        ok: true,
        evidence,
        lines: r.value.summary ? [`summary: ${r.value.summary}`] : [],
      };
    }
    case "local_search": {
      const r = await tools.localSearch(action.query, { topK });
      if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
      const evidence = recordLocalResults(ctx, r.value, action.query, r.callId);
      return { action: label, ok: true, evidence, lines: [] };
    }
  }
}
