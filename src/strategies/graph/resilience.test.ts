import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import type { ScriptRole } from "../../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { ReportDocument } from "../../core/report.ts";
import { GRAPH_FALLBACK_CODES } from "./fallbacks.ts";

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

/** A budget of calls for runs whose exact path depends on which answers fail. */
const loose = (scale: number) =>
  Object.fromEntries(Object.entries(DEFAULT_GRAPH_CALLS).map(([r, n]) => [r, [0, Math.ceil(n * scale) + 3]]));

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

  const cases: [ScriptRole, string | null, Record<string, unknown>][] = [
    ["router", "ROUTER_FALLBACK", {}],
    ["outline", "OUTLINE_FALLBACK", {}],
    ["init-plan", "INITPLAN_FALLBACK", {}],
    ["graph-planner", "PLANNER_FAILED", {}],
    ["critic", "gate-skipped", {}],
    ["revision", "REVISION_FAILED", { criticRejects: ["T-5"] }],
    ["inner-step", "INNER_STEP_FAILED", {}],
    ["consolidate", "CONSOLIDATE_FAILED", {}],
    ["ephemeral-rubric", "GAPS_FALLBACK", {}],
    ["section", "SECTION_FALLBACK", {}],
    ["sub-report", "SUB_REPORT_FALLBACK", {}],
    ["reader", null, {}],
    ["coherence", "COHERENCE_SKIPPED", {}],
  ];
  for (const [role, code, extra] of cases) {
    it(`takes the documented fallback when the ${role} always fails, and still reports`, async () => {
      world = await startResearchWorld({
        ...extra,
        override: (r) => (r === role ? refused : undefined),
        expectCalls: { ...loose(2), [role]: [1, 20] },
      });
      const result = await world.research({ query });
      expect(result.record.status).toBe("completed");
      const codes = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
      if (code) {
        expect(GRAPH_FALLBACK_CODES).toContain(code);
        expect(codes).toContain(code);
      } else {
        // A failed page read is an observation the inner agent plans around.
        const reads = result.events.filter((e) => e.type === "tool-end" && e.tool === "crawl_page");
        expect(reads.length).toBeGreaterThan(0);
        expect(reads.every((e) => e.type === "tool-end" && !e.ok)).toBe(true);
      }
      expect(result.outcome!.report.markdown.length).toBeGreaterThan(200);
      expectFullyCited(result.outcome!.report);
    });
  }

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
