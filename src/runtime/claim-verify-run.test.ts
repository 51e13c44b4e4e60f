import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { CallExpectations } from "../../test/research/call-expectations.ts";
import type { ScriptRole } from "../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { citedNumbers } from "../core/citations.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A minddr run with three agents that each read one page, then the claim judge (and writer). */
const calls = (extra: CallExpectations<ScriptRole>): CallExpectations<ScriptRole> => ({
  planner: 1,
  "search-step": 3,
  reader: 3,
  "sub-report": 3,
  outline: 1,
  section: 4,
  coherence: 1,
  ...extra,
});

describe("verify in a research run", () => {
  it("rewrite: the judge's unsupported claim is revised before the files are written; citations resolve", async () => {
    world = await startResearchWorld({
      subtasks: 3,
      expectCalls: calls({ "claim-judge": [2, 7], "claim-rewrite": 1 }),
    });
    const result = await world.research({
      query: "How is topic adoption changing?",
      strategy: "minddr",
      verify: "rewrite",
      formats: ["md", "json"],
    });
    expect(result.record.status).toBe("completed");
    const report = result.outcome!.report;
    const v = report.verification!;
    expect(v).toMatchObject({ mode: "rewrite", revised: 1, dropped: 0 });
    expect(v.claims.length).toBeGreaterThan(1);
    expect(v.claims.every((c) => c.verdict === "supported" && c.by === "judge")).toBe(true);
    const revised = v.claims.find((c) => c.revisedFrom !== undefined)!;
    expect(revised.text).toMatch(/^REVISED-CLAIM per the source\.$/);
    // The writer's own [E1] is gone; the claim kept its reference numbers, and every number resolves.
    expect(report.body).not.toContain("[E1]");
    const known = new Set(report.references.map((r) => r.number));
    expect(citedNumbers(report.markdown).length).toBeGreaterThan(0);
    expect(citedNumbers(report.markdown).every((n) => known.has(n))).toBe(true);
    // The files hold the final text, its summary line and the table.
    const md = readFileSync(result.outcome!.paths.find((p) => p.endsWith(".md"))!, "utf8");
    expect(md).toContain("REVISED-CLAIM per the source [");
    expect(md.trimEnd().split("\n").at(-1)).toMatch(
      /^Claim check \(judge model\): \d+ cited claims — 100% supported/,
    );
    const bundle = JSON.parse(readFileSync(result.outcome!.paths.find((p) => p.endsWith(".json"))!, "utf8"));
    expect(bundle.claims.claims).toHaveLength(v.claims.length);
    // Recorded in the run's log: the revision, then the figures, then the report.
    const types = result.events.map((e) => e.type);
    const revisedAt = types.indexOf("claim-revised");
    expect(revisedAt).toBeGreaterThan(0);
    expect(types.indexOf("claims-verified")).toBeGreaterThan(revisedAt);
    expect(types.indexOf("report-ready")).toBeGreaterThan(types.indexOf("claims-verified"));
    expect(result.events.find((e) => e.type === "claim-revised")).toMatchObject({
      claim: 1,
      action: "revise",
    });
  });
});
