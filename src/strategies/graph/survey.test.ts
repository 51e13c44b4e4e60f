import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import type { DossierEvent } from "../../core/events.ts";
import type { Evidence } from "../../core/source.ts";
import type { Observation } from "../../kit/observation.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { claimReads, SURVEY_LIMITS, surveySummary, surveyTools } from "./survey.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const tools = (available: ResearchTools["available"]) => ({ available }) as ResearchTools;
const evidence = (id: string, sourceId: string): Evidence => ({
  id,
  sourceId,
  text: "t",
  retrievedBy: { tool: "web_search", callId: "c" },
});
const urls: Record<string, string | undefined> = {
  S1: "https://a.example/1",
  S2: "https://b.example/2",
  S3: "file:///etc/passwd",
  S4: undefined,
  S5: "https://c.example/3",
  S6: "https://d.example/4",
};
const ctx = {
  evidence: { getSource: (id: string) => (id in urls ? { url: urls[id] } : undefined) },
} as unknown as Pick<RunContext, "evidence">;
const search = (ids: string[], ok = true, action = 'web_search "q"'): Observation => ({
  action,
  ok,
  evidence: ids.map((s, i) => evidence(`E${i + 1}`, s)),
  lines: [],
});

describe("broad searches: what they run and read", () => {
  it("runs the query on web and local search; paper search only when it is the only one", () => {
    expect(surveyTools(tools(["web_search", "read_page", "local_search", "academic_search"]))).toEqual([
      "web_search",
      "local_search",
    ]);
    expect(surveyTools(tools(["local_search"]))).toEqual(["local_search"]);
    expect(surveyTools(tools(["academic_search", "read_page"]))).toEqual(["academic_search"]);
    expect(surveyTools(tools(["read_page"]))).toEqual([]);
  });

  it("reads the best web results, in order, that no other broad search has claimed", () => {
    const claimed = new Set(["https://a.example/1"]);
    const picked = claimReads(ctx, [search(["S1", "S3", "S4", "S2", "S5", "S6"])], claimed, 2);
    expect(picked).toEqual(["https://b.example/2", "https://c.example/3"]);
    expect([...claimed]).toEqual(["https://a.example/1", "https://b.example/2", "https://c.example/3"]);
    // What was claimed is not read again; the limit holds exactly.
    expect(claimReads(ctx, [search(["S2", "S5", "S6"])], claimed, 1)).toEqual(["https://d.example/4"]);
    expect(claimReads(ctx, [search(["S6"])], claimed, 1)).toEqual([]);
  });

  it("reads nothing from a failed search or from other tools' results", () => {
    const claimed = new Set<string>();
    const picked = claimReads(
      ctx,
      [search(["S1"], false), search(["S2"], true, 'local_search "q"'), search(["S5"])],
      claimed,
      3,
    );
    expect(picked).toEqual(["https://c.example/3"]);
    expect(claimReads(ctx, [search(["S6"])], new Set(), 0)).toEqual([]);
  });

  it("leaves a listing of the query, what it found, what it read and what failed", () => {
    expect(surveySummary("q", ["A", "B"], ["A"], ['web_search "x": TOOL_FAILED'])).toBe(
      'Broad search "q" — found A; B — read A — failed web_search "x": TOOL_FAILED.',
    );
    expect(surveySummary("q", [], [], [])).toBe('Broad search "q".');
  });
});

describe("broad searches in a graph run", () => {
  it("are direct tool calls: no search agent plans them, each reads one page no other reads, the outline follows", async () => {
    world = await startResearchWorld({ expectCalls: DEFAULT_GRAPH_CALLS });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(result.record.status).toBe("completed");
    const codes = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    expect(codes).not.toContain("PLAN_GATHERED_NOTHING");
    expect(codes).not.toContain("SECTION_NO_EVIDENCE");
    const events = result.events as (DossierEvent & { scope?: string; seq: number })[];
    const survey = new Set(["search:T-1", "search:T-2"]);
    const inSurvey = events.filter((e) => e.scope && survey.has(e.scope));
    // Model calls in a broad search's scope are only the page readers.
    const roles = inSurvey.flatMap((e) => (e.type === "llm-start" ? [e.role] : []));
    expect(roles.length).toBe(2);
    expect(new Set(roles)).toEqual(new Set(["reader"]));
    const starts = inSurvey.flatMap((e) => (e.type === "tool-start" ? [e] : []));
    for (const scope of survey) {
      const mine = starts.filter((e) => e.scope === scope);
      expect(mine.filter((e) => e.tool === "web_search")).toHaveLength(1);
      expect(mine.filter((e) => e.tool === "crawl_page")).toHaveLength(SURVEY_LIMITS.readsPerQuery);
    }
    const read = starts.filter((e) => e.tool === "crawl_page").map((e) => JSON.stringify(e.args));
    expect(new Set(read).size).toBe(read.length);
    // Each broad search's result is its listing.
    for (const id of ["T-1", "T-2"])
      expect(events.find((e) => e.type === "node-end" && e.nodeId === id)).toMatchObject({
        status: "done",
        summary: expect.stringMatching(/^\d+ evidence: Broad search "/),
      });
    // The outline is asked after every broad-search call has ended.
    const outline = events.find(
      (e) => e.type === "llm-start" && e.role === "writer" && e.scope === "outline",
    )!;
    const lastSurvey = Math.max(...inSurvey.filter((e) => e.type === "tool-end").map((e) => e.seq));
    expect(outline.seq).toBeGreaterThan(lastSurvey);
  });
});
