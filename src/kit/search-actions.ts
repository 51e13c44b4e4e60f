/**
 * The actions a search agent may take, as zod schemas limited to the tools the run allows, and
 * their execution through the research tools (results recorded as evidence).
 */

import { z } from "zod";
import type { Evidence } from "../core/source.ts";
import { type SearchResult, timeRangeSchema } from "../tools/types.ts";
import { recordLocalResults, recordPageReading, recordSearchResultsPaired } from "./evidence-recorder.ts";
import type { Observation, ObservedResult } from "./observation.ts";
import type { PageWindow, ResearchToolName, ResearchTools } from "./research-tools.ts";
import type { RunContext } from "./run-context.ts";

// Each action's description is what the tool does: the schema is the agent's tool list (the
// prompt shows it as a type with these descriptions as comments, so it is not listed twice).
const webSearch = z
  .object({
    tool: z.literal("web_search"),
    query: z.string().min(2).describe("a web search query"),
    timeRange: timeRangeSchema.optional().describe("limit to results from the last day/week/month/year"),
  })
  .describe("search the web");
const readPage = z
  .object({
    tool: z.literal("read_page"),
    url: z.url().describe("a URL seen in earlier results"),
    goal: z.string().min(3).describe("what to look for on the page"),
  })
  .describe("read a page from the results and extract passages about the goal");
const localSearch = z
  .object({
    tool: z.literal("local_search"),
    query: z.string().min(2).describe("a query over the user's own documents"),
  })
  .describe("search the user's own documents");
const academicSearch = z
  .object({
    tool: z.literal("academic_search"),
    query: z
      .string()
      .min(2)
      .describe("a query for scholarly papers (arXiv, OpenAlex): key terms, not a question"),
    timeRange: timeRangeSchema.optional().describe("limit to papers from the last day/week/month/year"),
  })
  .describe("search scholarly papers; returns titles, authors, abstracts and paper URLs");

/** One action. */
export type SearchAction =
  | z.infer<typeof webSearch>
  | z.infer<typeof readPage>
  | z.infer<typeof localSearch>
  | z.infer<typeof academicSearch>;

const BY_NAME = {
  web_search: webSearch,
  read_page: readPage,
  local_search: localSearch,
  academic_search: academicSearch,
} as const;

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
    case "academic_search":
      return `academic_search "${a.query}"${a.timeRange ? ` (${a.timeRange})` : ""}`;
  }
}

/**
 * A search's observation: each result that became evidence is shown once, as its id, title,
 * URL and snippet; results that did not (no snippet) are listed by title and URL.
 */
function searchObservation<R extends SearchResult>(
  action: string,
  paired: readonly { result: R; evidence: Evidence | undefined }[],
  describe: (result: R) => string,
): Observation {
  const evidence: Evidence[] = [];
  const heads: Record<string, string> = {};
  const lines: string[] = [];
  const results: ObservedResult[] = [];
  for (const { result, evidence: e } of paired) {
    results.push({
      title: result.title,
      url: result.url,
      snippet: result.snippet,
      ...(result.publishedAt ? { publishedAt: result.publishedAt } : {}),
      ...(e ? { evidenceId: e.id } : {}),
    });
    if (!e) lines.push(describe(result));
    else if (!heads[e.id]) {
      evidence.push(e);
      heads[e.id] = describe(result);
    }
  }
  return { action, ok: true, evidence, lines, heads, results };
}

/** Runs one action and records its evidence; never throws. `window` sizes a page read. */
export async function runAction(
  ctx: RunContext,
  tools: ResearchTools,
  action: SearchAction,
  topK: number,
  window?: PageWindow,
): Promise<Observation> {
  const label = describeAction(action);
  switch (action.tool) {
    case "web_search": {
      const r = await tools.webSearch(action.query, {
        topK,
        ...(action.timeRange ? { timeRange: action.timeRange } : {}),
      });
      if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
      return searchObservation(
        label,
        recordSearchResultsPaired(ctx, r.value, action.query, r.callId),
        (x) => `${x.title} — ${x.url}`,
      );
    }
    case "read_page": {
      const r = window
        ? await tools.readPage(action.url, action.goal, window)
        : await tools.readPage(action.url, action.goal);
      if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
      const evidence = recordPageReading(ctx, r.value, action.goal, r.callId);
      return {
        action: label,
        ok: true,
        evidence,
        lines: r.value.summary ? [`summary: ${r.value.summary}`] : [],
        reading: {
          url: r.value.finalUrl || r.value.url,
          title: r.value.title,
          rationale: r.value.rationale,
          evidence: r.value.evidence,
          summary: r.value.summary,
        },
      };
    }
    case "local_search": {
      const r = await tools.localSearch(action.query, { topK });
      if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
      const evidence = recordLocalResults(ctx, r.value, action.query, r.callId);
      return { action: label, ok: true, evidence, lines: [] };
    }
    case "academic_search": {
      const r = await tools.academicSearch(action.query, {
        topK,
        ...(action.timeRange ? { timeRange: action.timeRange } : {}),
      });
      if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
      return searchObservation(
        label,
        recordSearchResultsPaired(ctx, r.value, action.query, r.callId, "academic_search"),
        (x) => {
          const by =
            x.authors.length > 0
              ? ` (${x.authors.slice(0, 3).join(", ")}${x.authors.length > 3 ? " et al." : ""})`
              : "";
          return `${x.title}${by} — ${x.url}`;
        },
      );
    }
  }
}

/** Runs a search agent's actions: never the same action twice, each batch concurrently. */
export class ActionRunner {
  /** Evidence gathered so far, in first-seen order. */
  readonly evidence: Evidence[] = [];
  toolCalls = 0;
  failedCalls = 0;
  readonly #seen = new Set<string>();
  readonly #ctx: RunContext;
  readonly #tools: ResearchTools;
  readonly #topK: number;

  constructor(ctx: RunContext, tools: ResearchTools, topK: number) {
    this.#ctx = ctx;
    this.#tools = tools;
    this.#topK = topK;
  }

  /** Runs the actions not taken before, concurrently; returns their observations. */
  async execute(actions: readonly SearchAction[]): Promise<Observation[]> {
    const fresh = actions.filter((a) => {
      const key = describeAction(a).toLowerCase();
      if (this.#seen.has(key)) return false;
      this.#seen.add(key);
      return true;
    });
    const observations = await Promise.all(
      fresh.map((a) => runAction(this.#ctx, this.#tools, a, this.#topK)),
    );
    this.toolCalls += observations.length;
    this.failedCalls += observations.filter((o) => !o.ok).length;
    for (const o of observations)
      for (const e of o.evidence) if (!this.evidence.includes(e)) this.evidence.push(e);
    return observations;
  }
}
