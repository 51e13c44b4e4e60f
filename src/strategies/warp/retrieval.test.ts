import { describe, expect, it } from "vitest";
import { systemClock } from "../../core/clock.ts";
import type { EventInput } from "../../core/events.ts";
import { EvidenceRegistry } from "../../core/evidence-registry.ts";
import type { PageReading, ResearchToolName, ResearchTools } from "../../kit/research-tools.ts";
import { unavailable } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { AcademicResult } from "../../tools/search/academic-result.ts";
import type { SearchResult, ToolResult } from "../../tools/types.ts";
import { retrieve } from "./retrieval.ts";

let calls = 0;
const ok = <T>(value: T): ToolResult<T> => ({
  ok: true,
  value,
  cached: false,
  provider: "fake",
  callId: `C${++calls}`,
  latencyMs: 0,
});
const failed = <T>(code = "NETWORK_ERROR"): ToolResult<T> => ({
  ok: false,
  error: { code, message: "scripted failure", retryable: false },
  provider: "fake",
  callId: `C${++calls}`,
  latencyMs: 0,
});

/** A context with an evidence registry and an event list; nothing else is used by retrieve(). */
function context() {
  const events: EventInput[] = [];
  const ctx = {
    evidence: new EvidenceRegistry(),
    emit: (e: EventInput) => events.push(e),
    clock: systemClock,
    budget: { exhausted: () => null },
  } as unknown as RunContext;
  return { ctx, events };
}

const web = (n: number): SearchResult => ({
  title: `Page ${n}`,
  url: `https://example.org/page/${n}`,
  snippet: `Snippet of page ${n}, a sentence or two long`,
});
const paper: AcademicResult = {
  title: "A paper",
  url: "https://arxiv.org/abs/2401.00001",
  snippet: "The whole abstract of the paper, several sentences about measured results.",
  authors: ["A. Author"],
};

/** Tools whose page reads follow `pages` (url → excerpts, or null for a failure). */
function tools(
  available: ResearchToolName[],
  pages: Record<string, string[] | null | "budget"> = {},
): ResearchTools & { read: string[]; academic: string[] } {
  const read: string[] = [];
  const academic: string[] = [];
  return {
    available,
    read,
    academic,
    webSearch: async () => ok([1, 2, 3, 4, 5].map(web)),
    academicSearch: async (query) => {
      academic.push(query);
      return ok([paper]);
    },
    localSearch: async () => unavailable("local_search"),
    readPage: async (url, goal): Promise<ToolResult<PageReading>> => {
      read.push(url);
      const page = pages[url];
      if (page === "budget") return failed("BUDGET_EXCEEDED");
      if (page === null) return failed();
      const evidence = page ?? [`Verbatim excerpt of ${url} about ${goal}.`];
      return ok({ url, finalUrl: url, title: url, rationale: "", evidence, summary: "" });
    },
  };
}

describe("warp retrieval", () => {
  it("sends every keyword to academic search when it is available, and keeps the abstracts", async () => {
    const { ctx } = context();
    const t = tools(["web_search", "read_page", "academic_search"]);
    const r = await retrieve(ctx, t, ["heat pumps", "cold climate"], 10);
    expect(t.academic).toEqual(["heat pumps", "cold climate"]);
    const abstract = r.passages.find((p) => p.retrievedBy.tool === "academic_search");
    expect(abstract?.text).toBe(paper.snippet);
    // Without academic search, no call and no abstract.
    const plain = tools(["web_search", "read_page"]);
    const r2 = await retrieve(context().ctx, plain, ["heat pumps"], 10);
    expect(plain.academic).toEqual([]);
    expect(r2.passages.some((p) => p.retrievedBy.tool === "academic_search")).toBe(false);
  });

  it("reads the best web result for the goal and puts its excerpts first; academic landing pages are not read", async () => {
    const { ctx } = context();
    const t = tools(["web_search", "read_page", "academic_search"]);
    const r = await retrieve(ctx, t, ["heat pumps"], 10, { pages: 1, goal: "Costs" });
    expect(t.read).toEqual(["https://example.org/page/1"]);
    expect(r.read).toEqual(["https://example.org/page/1"]);
    expect(r.passages[0]).toMatchObject({ retrievedBy: { tool: "read_page" } });
    expect(r.passages.length).toBeLessThanOrEqual(10);
  });

  it("replaces a page that fails or yields nothing by the next result, at most twice", async () => {
    const t = tools(["web_search", "read_page"], {
      "https://example.org/page/1": null,
      "https://example.org/page/2": [],
    });
    const r = await retrieve(context().ctx, t, ["heat pumps"], 10, { pages: 1, goal: "Costs" });
    expect(t.read).toEqual([1, 2, 3].map((n) => `https://example.org/page/${n}`));
    expect(r.read).toEqual(["https://example.org/page/3"]);

    const none = tools(["web_search", "read_page"], {
      "https://example.org/page/1": null,
      "https://example.org/page/2": null,
      "https://example.org/page/3": null,
    });
    const r2 = await retrieve(context().ctx, none, ["heat pumps"], 10, { pages: 1, goal: "Costs" });
    expect(none.read).toHaveLength(3);
    expect(r2.read).toEqual([]);
    expect(r2.passages.every((p) => p.retrievedBy.tool === "web_search")).toBe(true);
  });

  it("prefers pages the run has not read yet, and reads nothing more after a budget limit", async () => {
    const alreadyRead = new Set(["https://example.org/page/1"]);
    const t = tools(["web_search", "read_page"]);
    const r = await retrieve(context().ctx, t, ["heat pumps"], 10, { pages: 2, goal: "Grid", alreadyRead });
    expect(t.read).toEqual(["https://example.org/page/2", "https://example.org/page/3"]);
    expect([...alreadyRead]).toEqual([1, 2, 3].map((n) => `https://example.org/page/${n}`));
    expect(r.read).toHaveLength(2);

    const capped = tools(["web_search", "read_page"], { "https://example.org/page/1": "budget" });
    const r2 = await retrieve(context().ctx, capped, ["heat pumps"], 10, { pages: 1, goal: "Grid" });
    expect(capped.read).toEqual(["https://example.org/page/1"]);
    expect(r2.read).toEqual([]);
  });
});
