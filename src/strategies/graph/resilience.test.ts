import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import type { ScriptRole } from "../../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { ReportDocument } from "../../core/report.ts";
import { GRAPH_FALLBACK_CODES } from "./fallbacks.ts";
import { FALLBACK_RUBRIC } from "./framing.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
const broken = { kind: "text" as const, text: '{ "truncated": ' };
const refused = { kind: "error" as const, status: 400 };

/** Every citation resolves to a reference, every reference is cited, nothing was dropped. */
function expectFullyCited(report: ReportDocument) {
  const cited = citedNumbers(report.body);
  expect(cited.length).toBeGreaterThan(0);
  expect(report.references.length).toBeGreaterThan(0);
  for (const n of cited) expect(n >= 1 && n <= report.references.length).toBe(true);
  expect(new Set(cited)).toEqual(new Set(report.references.map((r) => r.number)));
  expect(report.checks.citations.dropped).toBe(0);
  const fetched = new Set(report.sources.map((s) => s.id));
  for (const r of report.references) expect(fetched.has(r.sourceId)).toBe(true);
}

/**
 * The calls of a run on INITPLAN's fallback plan: one search node per level-1 section (four,
 * where INITPLAN's answer makes two), so twice the loop's search agents.
 */
const FALLBACK_PLAN_CALLS = {
  ...DEFAULT_GRAPH_CALLS,
  "inner-step": 2 * DEFAULT_GRAPH_CALLS["inner-step"],
  "sub-report": 2 * DEFAULT_GRAPH_CALLS["sub-report"],
  // Two pages read by the broad searches, one by each search agent.
  reader: 2 + 4,
};

/** A budget of calls for runs whose exact path (the first plan's included) depends on which answers fail. */
const loose = (scale: number) =>
  Object.fromEntries(Object.entries(FALLBACK_PLAN_CALLS).map(([r, n]) => [r, [0, Math.ceil(n * scale) + 3]]));

describe("graph strategy: resilience", () => {
  it("a critic that never answers validly skips the gate (gate-skipped) and the run still reports", async () => {
    world = await startResearchWorld({
      override: (role) => (role === "critic" ? broken : undefined),
      // Two gate turns, each the first answer plus two repairs.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, critic: 2 * 3 },
    });
    const result = await world.research({ query });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    const skipped = result.events.filter((e) => e.type === "warning" && e.code === "gate-skipped");
    expect(skipped).toHaveLength(2);
    const verdicts = result.events.flatMap((e) => (e.type === "gate-verdict" ? [[e.nodeId, e.verdict]] : []));
    expect(verdicts).toEqual([
      ["T-5", "approve"],
      ["T-6", "approve"],
      ["T-7", "approve"],
    ]);
    for (const id of ["T-5", "T-6", "T-7"])
      expect(result.events.some((e) => e.type === "node-end" && e.nodeId === id && e.status === "done")).toBe(
        true,
      );
    expectFullyCited(result.outcome!.report);
  });

  const cases: [ScriptRole, string[], Record<string, unknown>][] = [
    ["router", ["ROUTER_FALLBACK"], {}],
    ["outline", ["OUTLINE_FALLBACK"], {}],
    // INITPLAN writes the persistent rubric too: both fall back.
    ["init-plan", ["RUBRIC_FALLBACK", "INITPLAN_FALLBACK"], {}],
    ["graph-planner", ["PLANNER_FAILED"], {}],
    ["critic", ["gate-skipped"], {}],
    ["revision", ["REVISION_FAILED"], { criticRejects: ["T-5"] }],
    ["inner-step", ["INNER_STEP_FAILED"], {}],
    ["consolidate", ["CONSOLIDATE_FAILED"], {}],
    ["ephemeral-rubric", ["GAPS_FALLBACK"], {}],
    ["section", ["SECTION_FALLBACK"], {}],
    ["sub-report", ["SUB_REPORT_FALLBACK"], {}],
    ["reader", [], {}],
    ["coherence", ["COHERENCE_SKIPPED"], {}],
  ];
  for (const [role, expected, extra] of cases) {
    it(`takes the documented fallback when the ${role} always fails, and still reports`, async () => {
      world = await startResearchWorld({
        ...extra,
        override: (r) => (r === role ? refused : undefined),
        expectCalls: { ...loose(2), [role]: [1, 20] },
      });
      const result = await world.research({ query });
      expect(result.record.status).toBe("completed");
      const codes = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
      for (const code of expected) {
        expect(GRAPH_FALLBACK_CODES).toContain(code);
        expect(codes).toContain(code);
      }
      if (expected.length === 0) {
        // A failed page read is an observation the broad search lists and the inner agent plans around.
        const reads = result.events.filter((e) => e.type === "tool-end" && e.tool === "crawl_page");
        expect(reads.length).toBeGreaterThan(0);
        expect(reads.every((e) => e.type === "tool-end" && !e.ok)).toBe(true);
      }
      expect(result.outcome!.report.markdown.length).toBeGreaterThan(200);
      expectFullyCited(result.outcome!.report);
    });
  }

  it("a failed INITPLAN gives the fixed rubric and the fallback plan, and the first cycle runs its whole ready frontier", async () => {
    world = await startResearchWorld({
      override: (role) => (role === "init-plan" ? refused : undefined),
      // Four search nodes and no cross-check: after the first cycle, one planner turn asks for the report.
      expectCalls: {
        ...FALLBACK_PLAN_CALLS,
        "graph-planner": 1,
        critic: 1,
        consolidate: 0,
        "ephemeral-rubric": 1,
      },
    });
    const result = await world.research({ query });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    const events = result.events;
    expect(events.flatMap((e) => (e.type === "warning" ? [e.code] : []))).toEqual([
      "RUBRIC_FALLBACK",
      "INITPLAN_FALLBACK",
    ]);
    expect(events.find((e) => e.type === "rubric-update" && e.kind === "persistent")).toMatchObject({
      rubric: FALLBACK_RUBRIC,
    });
    for (const prompt of world.script.prompts["inner-step"])
      expect(prompt).toContain(FALLBACK_RUBRIC.split("\n")[0]);
    expect(
      events.flatMap((e) => (e.type === "phase" && e.phase === "researching" ? [e.detail] : [])),
    ).toEqual(["iteration 1: 4 nodes"]);
    const searches = events.flatMap((e) =>
      e.type === "node-start" && e.nodeType === "search" && !["T-1", "T-2"].includes(e.nodeId)
        ? [e.nodeId]
        : [],
    );
    expect(searches.sort()).toEqual(["T-5", "T-6", "T-7", "T-8"]);
    expectFullyCited(result.outcome!.report);
  });

  for (const seed of [1, 2, 3]) {
    it(`finishes with a valid, fully cited report when half of the JSON answers are cut short (seed ${seed})`, async () => {
      world = await startResearchWorld({ truncateJson: { share: 0.5, seed }, expectCalls: loose(3) });
      const result = await world.research({ query });
      expect(result.record.status).toBe("completed");
      expect(result.events.some((e) => e.type === "format-error")).toBe(true);
      const report = result.outcome!.report;
      expectFullyCited(report);
      expect(report.checks.headings.problems).toBe(0);
      expect(report.checks.tables.valid).toBe(report.checks.tables.total);
    });
  }
});
