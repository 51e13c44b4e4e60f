/**
 * Running a WARP SEARCH action: each keyword goes to every search tool the run allows (web
 * search, academic search when configured, the local knowledge base) for its top 5 hits; hits
 * are recorded in the run's evidence registry (so a passage keeps one id for the whole run),
 * merged rank by rank across keywords, deduplicated by exact text, and capped (20 passages at
 * initialisation, 10 per section).
 *
 * The seed's knowledge base held whole arXiv abstracts and summarised web pages (A.3), while a
 * web search gives snippets of a sentence or two. So academic search, when configured, adds
 * abstracts, and for a section the best web results are read for the section's goal: `pages`
 * pages are read (those this run has not read yet first; a page that fails or yields no excerpt
 * is replaced by the next result, up to two replacements) and their verbatim excerpts come
 * first.
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
  /** Pages read (with at least one excerpt), by URL. */
  read: string[];
}

/** Page reading for a section's SEARCH. */
export interface PageReadingRequest {
  /** Pages to read. */
  pages: number;
  /** What the section needs from them. */
  goal: string;
  /** URLs this run has read already; read pages are added. Unread URLs are preferred. */
  alreadyRead?: Set<string>;
}

/** Pages that fail or yield nothing may be replaced this many times per SEARCH. */
export const PAGE_REPLACEMENTS = 2;

const squash = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** Searches every keyword with every allowed search tool; returns up to `cap` distinct passages. */
export async function retrieve(
  ctx: RunContext,
  tools: ResearchTools,
  keywords: readonly string[],
  cap: number,
  reading: PageReadingRequest = { pages: 0, goal: "" },
): Promise<Retrieval> {
  const useWeb = tools.available.includes("web_search");
  const useAcademic = tools.available.includes("academic_search");
  const useLocal = tools.available.includes("local_search");
  const jobs = keywords.flatMap((keyword) => [
    ...(useLocal ? [{ keyword, tool: "local" as const }] : []),
    ...(useWeb ? [{ keyword, tool: "web" as const }] : []),
    ...(useAcademic ? [{ keyword, tool: "academic" as const }] : []),
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
      if (tool === "academic") {
        const r = await tools.academicSearch(keyword, { topK: TOP_K_PER_KEYWORD });
        note(r);
        const hits = r.ok ? r.value.slice(0, TOP_K_PER_KEYWORD) : [];
        return r.ok ? recordSearchResults(ctx, hits, keyword, r.callId, "academic_search") : [];
      }
      const r = await tools.webSearch(keyword, { topK: TOP_K_PER_KEYWORD });
      note(r);
      return r.ok ? recordSearchResults(ctx, r.value.slice(0, TOP_K_PER_KEYWORD), keyword, r.callId) : [];
    }),
  );
  const ranked: Evidence[] = [];
  const depth = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < depth; rank++) for (const list of lists) if (list[rank]) ranked.push(list[rank]!);

  const pages =
    useWeb && reading.pages > 0 && !budget ? await readPages(ctx, tools, ranked, reading, note) : null;

  const passages: Evidence[] = [];
  const seen = new Set<string>();
  for (const e of [...(pages?.excerpts ?? []), ...ranked]) {
    if (passages.length >= cap) break;
    const key = squash(e.text);
    if (seen.has(key)) continue;
    seen.add(key);
    passages.push(e);
  }
  return {
    passages,
    calls: jobs.length + (pages?.attempts ?? 0),
    failed,
    budget,
    read: pages?.read ?? [],
  };
}

/**
 * Reads `reading.pages` of the web results for the goal: unread URLs first, a failed or empty
 * reading replaced by the next candidate (at most {@link PAGE_REPLACEMENTS} times), nothing more
 * after a budget limit.
 */
async function readPages(
  ctx: RunContext,
  tools: ResearchTools,
  ranked: readonly Evidence[],
  reading: PageReadingRequest,
  note: (r: ToolResult<unknown>) => void,
): Promise<{ excerpts: Evidence[]; read: string[]; attempts: number }> {
  const already = reading.alreadyRead ?? new Set<string>();
  const all = webUrls(ctx, ranked);
  const candidates = [...all.filter((u) => !already.has(u)), ...all.filter((u) => already.has(u))];
  const excerpts: Evidence[] = [];
  const read: string[] = [];
  let attempts = 0;
  let stopped = false;
  const maxAttempts = reading.pages + PAGE_REPLACEMENTS;
  while (!stopped && read.length < reading.pages && candidates.length > 0 && attempts < maxAttempts) {
    const batch = candidates.splice(0, Math.min(reading.pages - read.length, maxAttempts - attempts));
    attempts += batch.length;
    const results = await Promise.all(
      batch.map(async (url) => {
        const r = await tools.readPage(url, reading.goal);
        note(r);
        if (!r.ok) {
          if (r.error.code === "BUDGET_EXCEEDED") stopped = true;
          return { url, found: [] as Evidence[] };
        }
        return { url, found: recordPageReading(ctx, r.value, reading.goal, r.callId) };
      }),
    );
    for (const { url, found } of results) {
      if (found.length === 0) continue;
      excerpts.push(...found);
      read.push(url);
      already.add(url);
    }
  }
  return { excerpts, read, attempts };
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
