/**
 * Running a WARP SEARCH action: each keyword goes to every search tool the run allows (web
 * search, the local knowledge base) for its top 5 hits; hits are recorded in the run's evidence
 * registry (so a passage keeps one id for the whole run), merged rank by rank across keywords,
 * deduplicated by exact text, and capped (20 passages at initialisation, 10 per section).
 * Optionally the best web results are read for the section's goal and their verbatim excerpts
 * come first (web snippets are short; the seed's knowledge base held whole abstracts).
 */

import type { BudgetLimitName } from "../../core/budget.ts";
import type { Evidence } from "../../core/source.ts";
import { recordLocalResults, recordPageReading, recordSearchResults } from "../../kit/evidence-recorder.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ToolResult } from "../../tools/types.ts";

/** Hits asked of a search tool per keyword. */
export const TOP_K_PER_KEYWORD = 5;
/** Most passages a section's writer is given. */
export const MAX_SECTION_PASSAGES = 10;
/** Most passages of the initial broad survey. */
export const MAX_INITIAL_PASSAGES = 20;

/** What one SEARCH action retrieved. */
export interface Retrieval {
  /** Passages in rank order, exact-text deduplicated and capped. */
  passages: Evidence[];
  /** Tool calls made and how many failed. */
  calls: number;
  failed: number;
  /** The budget limit a tool call ran into, if any. */
  budget: BudgetLimitName | null;
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** Searches every keyword with every allowed search tool; returns up to `cap` distinct passages. */
export async function retrieve(
  ctx: RunContext,
  tools: ResearchTools,
  keywords: readonly string[],
  cap: number,
  reading: { pages: number; goal: string } = { pages: 0, goal: "" },
): Promise<Retrieval> {
  const useWeb = tools.available.includes("web_search");
  const useLocal = tools.available.includes("local_search");
  const jobs = keywords.flatMap((keyword) => [
    ...(useLocal ? [{ keyword, tool: "local" as const }] : []),
    ...(useWeb ? [{ keyword, tool: "web" as const }] : []),
  ]);
  let failed = 0;
  let budget: BudgetLimitName | null = null;
  const note = (r: ToolResult<unknown>) => {
    if (r.ok) return;
    failed++;
    if (r.error.code === "BUDGET_EXCEEDED" && !budget)
      budget = (ctx.budget.exhausted() ?? "toolCalls") as BudgetLimitName;
  };
  const lists = await Promise.all(
    jobs.map(async ({ keyword, tool }): Promise<Evidence[]> => {
      if (tool === "local") {
        const r = await tools.localSearch(keyword, { topK: TOP_K_PER_KEYWORD });
        note(r);
        return r.ok ? recordLocalResults(ctx, r.value.slice(0, TOP_K_PER_KEYWORD), keyword, r.callId) : [];
      }
      const r = await tools.webSearch(keyword, { topK: TOP_K_PER_KEYWORD });
      note(r);
      return r.ok ? recordSearchResults(ctx, r.value.slice(0, TOP_K_PER_KEYWORD), keyword, r.callId) : [];
    }),
  );
  const ranked: Evidence[] = [];
  const depth = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < depth; rank++) for (const list of lists) if (list[rank]) ranked.push(list[rank]!);

  const urls = useWeb && reading.pages > 0 ? webUrls(ctx, ranked).slice(0, reading.pages) : [];
  const excerpts = await Promise.all(
    urls.map(async (url) => {
      const r = await tools.readPage(url, reading.goal);
      note(r);
      return r.ok ? recordPageReading(ctx, r.value, reading.goal, r.callId) : [];
    }),
  );

  const passages: Evidence[] = [];
  const seen = new Set<string>();
  for (const e of [...excerpts.flat(), ...ranked]) {
    if (passages.length >= cap) break;
    const key = squash(e.text);
    if (seen.has(key)) continue;
    seen.add(key);
    passages.push(e);
  }
  return { passages, calls: jobs.length + urls.length, failed, budget };
}

/** Distinct URLs of the web results among `evidence`, in order. */
function webUrls(ctx: RunContext, evidence: readonly Evidence[]): string[] {
  const urls: string[] = [];
  for (const e of evidence) {
    const url = e.retrievedBy.tool === "web_search" ? ctx.evidence.getSource(e.sourceId)?.url : undefined;
    if (url && !urls.includes(url)) urls.push(url);
  }
  return urls;
}
