import { afterEach, describe, expect, it } from "vitest";
import type { CallExpectations } from "../../../test/research/call-expectations.ts";
import type { ScriptRole } from "../../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import { computeProcessMetrics } from "../../eval/process/process-metrics.ts";

let world: ResearchWorld | undefined;

/** The calls of a minddr run whose agents each read one page (and finish with it): exact per role. */
const minddrCalls = (subtasks: number): CallExpectations<ScriptRole> => ({
  planner: 1,
  "search-step": subtasks,
  reader: subtasks,
  "sub-report": subtasks,
  outline: 1,
  section: 4,
  coherence: 1,
});
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("minddr end to end", () => {
  it("plans, searches concurrently, reads pages and writes a report whose every citation resolves", async () => {
    world = await startResearchWorld({ subtasks: 5, latencyMs: 100, expectCalls: minddrCalls(5) });
    const result = await world.research({
      query: "How is topic adoption changing?",
      strategy: "minddr",
      formats: ["md", "html", "json"],
    });
    expect(result.record.status).toBe("completed");
    expect(result.record.stopReason).toBe("completed");
    const report = result.outcome!.report;

    // Protocol: one plan, five agents, each ran seed searches and one model step that read a page
    // and finished with that read (its last action), then wrote its sub-report.
    const s = world.script.counts;
    expect(s.planner).toBe(1);
    expect(s["sub-report"]).toBe(5);
    expect(s["search-step"]).toBe(5);
    expect(s.reader).toBe(5);
    expect(s.outline).toBe(1);
    expect(s.section).toBe(4);
    expect(s.coherence).toBe(1);
    expect(world.script.unexpected).toEqual([]);
    // Agents ran concurrently: as many agents as the run's concurrency allows started
    // before the first one ended, and as many section writers called the model before the
    // first answer came back. (Event order, not timing, so machine load cannot flake it.)
    const events = result.events;
    const firstEnd = events.find((e) => e.type === "node-end")!.seq;
    const concurrency = world.config.concurrency;
    expect(events.filter((e) => e.type === "node-start" && e.seq < firstEnd)).toHaveLength(
      Math.min(concurrency, 5),
    );
    const sectionCall = (e: (typeof events)[number]) => e.scope?.startsWith("section:") ?? false;
    const firstSectionEnd = events.find((e) => e.type === "llm-end" && sectionCall(e))!.seq;
    expect(
      events.filter((e) => e.type === "llm-start" && sectionCall(e) && e.seq < firstSectionEnd),
    ).toHaveLength(Math.min(concurrency, 4));

    // Every number in the report resolves to a source fetched in this run.
    const numbers = citedNumbers(report.body);
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers).toEqual(report.references.map((r) => r.number).filter((n) => numbers.includes(n)));
    const added = new Set(
      result.events.flatMap((e) => (e.type === "source-add" ? [(e.source as { id: string }).id] : [])),
    );
    for (const ref of report.references) expect(added.has(ref.sourceId)).toBe(true);
    expect(Math.max(...numbers)).toBe(report.references.length);
    expect(report.checks.citations.dropped).toBe(0);
    expect(report.checks.groundedShare).toBeGreaterThan(0.5);

    // Files were written and announced.
    expect(result.outcome!.paths.map((p) => p.split(".").at(-1))).toEqual(["md", "html", "json"]);
    const ready = result.events.filter((e) => e.type === "report-ready");
    expect(ready).toHaveLength(1);
    // Events are scoped to the agents that made them.
    const scopes = new Set(result.events.map((e) => e.scope).filter(Boolean));
    expect(scopes).toContain("planner");
    expect(scopes).toContain("search:T-3");
    expect(scopes).toContain("section:2");

    // The run's event log feeds the process metrics, including the report's check figures.
    const metrics = computeProcessMetrics(result.events);
    expect(JSON.stringify(metrics)).toContain('"headingErrors":0');
    expect(metrics).toMatchObject({ report: { headingErrors: 0, temporalFlagged: 0 } });
  });

  it("drops an evidence id the model invents and counts it", async () => {
    world = await startResearchWorld({ subtasks: 3, inventCitation: true, expectCalls: minddrCalls(3) });
    const result = await world.research({ query: "What drives topic growth?", strategy: "minddr" });
    const report = result.outcome!.report;
    expect(report.markdown).not.toContain("E999");
    expect(report.checks.citations.byReason["unknown-evidence"]).toBe(4);
    expect(citedNumbers(report.body).every((n) => n >= 1 && n <= report.references.length)).toBe(true);
  });

  it("drops page excerpts that are not verbatim and notes it on the tool call", async () => {
    world = await startResearchWorld({ subtasks: 3, paraphraseExcerpt: true, expectCalls: minddrCalls(3) });
    const result = await world.research({ query: "What drives topic growth?", strategy: "minddr" });
    const notes = result.events.flatMap((e) =>
      e.type === "tool-end" && e.tool === "crawl_page" ? [e.note ?? ""] : [],
    );
    expect(notes.length).toBe(3);
    for (const note of notes) expect(note).toContain("dropped 1");
    expect(result.outcome!.report.evidence.some((e) => e.text.includes("never contained"))).toBe(false);
  });

  it("keeps going when every search fails, writes what it can, and fails the run with NO_EVIDENCE", async () => {
    // No evidence: each agent takes one step and stops; no sub-report, section or coherence call.
    world = await startResearchWorld({
      subtasks: 3,
      searchFailsWith: 500,
      expectCalls: { planner: 1, "search-step": 3, outline: 1 },
    });
    const result = await world.research({ query: "What drives topic growth?", strategy: "minddr" });
    expect(result.record).toMatchObject({ status: "failed", error: { code: "NO_EVIDENCE" } });
    const failed = result.events.filter((e) => e.type === "node-end" && e.status === "failed");
    expect(failed).toHaveLength(3);
    // No evidence: no sub-report or section call is made, the report still exists.
    expect(world.script.counts["sub-report"]).toBe(0);
    expect(result.outcome!.report.references).toEqual([]);
    expect(result.outcome!.paths).toHaveLength(1);
  });

  it("completes when some searches fail but others gather evidence", async () => {
    world = await startResearchWorld({
      subtasks: 3,
      searchFailsFor: (q) => q.startsWith("aspect 2"),
      expectCalls: { ...minddrCalls(3), reader: 2, "sub-report": 2 },
    });
    const result = await world.research({ query: "What drives topic growth?", strategy: "minddr" });
    const searches = result.events.flatMap((e) =>
      e.type === "tool-end" && e.tool === "web_search" ? [e] : [],
    );
    expect(searches.filter((e) => !e.ok).length).toBeGreaterThan(0);
    expect(searches.filter((e) => e.ok).length).toBeGreaterThan(0);
    expect(result.record).toMatchObject({ status: "completed", stopReason: "completed" });
    expect(result.outcome!.report.references.length).toBeGreaterThan(0);
  });

  it("writes under Chinese instructions for a Chinese question", async () => {
    world = await startResearchWorld({ subtasks: 3, expectCalls: minddrCalls(3) });
    const result = await world.research({ query: "固态电池的商业化进展如何？", strategy: "minddr" });
    expect(result.record.status).toBe("completed");
    expect(result.outcome!.report.language).toBe("zh");
    for (const role of ["section", "outline", "coherence", "sub-report"] as const) {
      expect(world.script.systems[role].length).toBeGreaterThan(0);
      for (const system of world.script.systems[role]) expect(system).toContain("简体中文");
    }
    expect(result.outcome!.report.markdown).toContain("## 参考文献");
  });
});
