import { describe, expect, it, vi } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { fixtureCall, fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { minddrReportReward } from "./minddr-report.ts";

const report = [
  "# Museum",
  "",
  "## Findings",
  "",
  "The museum opened in Turin in 1832 [1]. Its founder was an engineer [2]. Visitors rose sharply last year [3].",
  "",
  "| Year | Visitors |",
  "|---|---|",
  "| 2024 | 10 | 11 |",
  "",
  "## References",
  "",
  "1. History. <https://a.example/history> (accessed 2026-01-01)",
  "2. Founder. <https://b.example/founder> (accessed 2026-01-01)",
  "3. Visitors. <https://c.example/visitors> (accessed 2026-01-01)",
].join("\n");
const refOf = (n: number) =>
  `# R\n\n${Array.from({ length: n }, (_, i) => `Claim ${i + 1} [${i + 1}].`).join(" ")}\n\n## References\n\n${Array.from(
    { length: n },
    (_, i) => `${i + 1}. <https://r.example/${i + 1}>`,
  ).join("\n")}\n`;
const run = fixtureRun({
  strategy: "minddr",
  row: fixtureRow({ reference: refOf(4) }),
  report,
  sources: [
    {
      id: "S1",
      kind: "web",
      url: "https://a.example/history",
      title: "H",
      fetchedAt: "2026-01-01T00:00:00Z",
    },
  ],
  evidence: [
    {
      id: "E1",
      sourceId: "S1",
      text: "The museum opened its doors in Turin in 1832 after a royal decree.",
      retrievedBy: { tool: "web_search", callId: "T1" },
    },
  ],
});
const race = vi.fn(async () => 0.48);

describe("minddr-report (Eq. 10–12)", () => {
  it("computes every component and R_Report by hand", async () => {
    const r = await minddrReportReward(run, { race });
    expect(race).toHaveBeenCalledWith({ report, row: run.row });
    expect(r.components.race).toBe(0.48);
    // n_gen = 3 ≥ 0.7·4 = 2.8, n_valid = 1 (only [1] is supported) < 2.8 → R_cite = −0.1
    expect([r.citations.generated, r.citations.reference, r.citations.valid]).toEqual([3, 4, 1]);
    expect(r.components.cite).toBe(-0.1);
    // the table's body row has 3 cells for 2 columns → v_md = 1; v_tag = v_ref = 0 → R_format = −1
    expect(r.violations).toEqual({ tag: 0, markdown: 1, citation: 0 });
    expect(r.components.format).toBe(-1);
    // R = 0.48 + 1·(−0.1) + 0.1·(−1) = 0.28
    expect(r.reward).toBeCloseTo(0.28, 12);
  });

  it("gives +0.1 when enough citations are relevant and −1 when too few are made", async () => {
    const relevant = await minddrReportReward(run, { race, relevance: () => 0.9 });
    expect(relevant.components.cite).toBe(0.1);
    expect(relevant.reward).toBeCloseTo(0.48 + 0.1 - 0.1, 12);
    // n_ref = 5 → 0.7·5 = 3.5 > n_gen = 3 → −1; with λ_c = 0.5, λ_f = 0.2: 0.48 − 0.5 − 0.2 = −0.22
    const few = await minddrReportReward(
      { ...run, row: fixtureRow({ reference: refOf(5) }) },
      { race },
      { lambdaCite: 0.5, lambdaFormat: 0.2 },
    );
    expect(few.components.cite).toBe(-1);
    expect(few.reward).toBeCloseTo(-0.22, 12);
  });

  it("checks the <final_answer> tag on the last writer completion when asked", async () => {
    const calls = [
      fixtureCall({
        callId: "L1",
        step: 1,
        role: "writer",
        completion: "<final_answer># Museum</final_answer>",
      }),
      fixtureCall({ callId: "L2", step: 1, role: "judge", completion: "no tag here" }),
    ];
    const tagged = await minddrReportReward({ ...run, calls }, { race }, { tag: "final_answer" });
    expect(tagged.violations.tag).toBe(0);
    const untagged = await minddrReportReward(
      { ...run, calls: [fixtureCall({ callId: "L1", step: 1, role: "writer", completion: "# Museum" })] },
      { race },
      { tag: "final_answer" },
    );
    expect(untagged.violations.tag).toBe(1);
    expect(untagged.components.format).toBe(-2);
  });

  it("scores a run without a report without calling the scorer, and needs the row's reference", async () => {
    const scorer = vi.fn(async () => 1);
    const none = await minddrReportReward({ ...run, report: null }, { race: scorer });
    expect(scorer).not.toHaveBeenCalled();
    // R_RACE = 0; n_gen = 0 < 2.8 → −1; v_tag = 1 → R_format = −1: 0 − 1 − 0.1 = −1.1
    expect(none.reward).toBeCloseTo(-1.1, 12);
    await expect(minddrReportReward({ ...run, row: fixtureRow() }, { race })).rejects.toSatisfy((e) =>
      isDossierError(e, "INPUT_INVALID"),
    );
  });
});

describe("minddr-report: what the trainer sees", () => {
  it("names the row whose reference report is missing", async () => {
    await expect(minddrReportReward({ ...run, row: fixtureRow({ id: "q7" }) }, { race })).rejects.toThrow(
      "row q7: minddr-report needs the row's reference report (Eq. 10)",
    );
  });

  it("applies the τ and the ratio it is given", async () => {
    // relevance 0.9 < τ = 0.95: no citation is valid → n_gen = 3 ≥ 2.8 but n_valid = 0 → −0.1
    const strict = await minddrReportReward(run, { race, relevance: () => 0.9 }, { tau: 0.95 });
    expect([strict.citations.valid, strict.components.cite]).toEqual([0, -0.1]);
    // n_ref = 5: 0.7·5 = 3.5 > 3 → −1 by default; with the ratio 0.5, 2.5 ≤ 3 → +0.1
    const five = { ...run, row: fixtureRow({ reference: refOf(5) }) };
    const lenient = await minddrReportReward(five, { race, relevance: () => 0.9 }, { ratio: 0.5 });
    expect(lenient.components.cite).toBe(0.1);
  });

  it("reads the tag on the last call of the answering role, and a missing call is a missing answer", async () => {
    const writer = (callId: string, completion: string) =>
      fixtureCall({ callId, step: 1, role: "writer", completion });
    const opts = { tag: "final_answer" } as const;
    const later = await minddrReportReward(
      { ...run, calls: [writer("L1", "<final_answer>A</final_answer>"), writer("L2", "A")] },
      { race },
      opts,
    );
    expect(later.violations.tag).toBe(1);
    const none = await minddrReportReward({ ...run, calls: [] }, { race }, opts);
    expect(none.violations.tag).toBe(1);
    expect(none.problems[0]).toEqual({ kind: "final-answer-tag", message: "no final answer" });
    const searcher = fixtureCall({ callId: "L3", step: 1, completion: "<final_answer>A</final_answer>" });
    const other = await minddrReportReward(
      { ...run, calls: [searcher] },
      { race },
      { ...opts, answerRole: "searcher" },
    );
    expect(other.violations.tag).toBe(0);
  });

  it("adds the three violations: a fully malformed report loses 3·λ_f, a clean one nothing", async () => {
    const malformed = report.replace("last year [3].", "last year [3]. It grew [9].");
    const bad = await minddrReportReward(
      { ...run, report: malformed, calls: [] },
      { race },
      { tag: "final_answer" },
    );
    expect(bad.violations).toEqual({ tag: 1, markdown: 1, citation: 1 });
    expect(bad.problems.map((p) => p.kind)).toEqual(["final-answer-tag", "table", "citation-unresolved"]);
    expect(bad.components).toEqual({ race: 0.48, cite: -0.1, format: -3 });
    expect(bad.lambdas).toEqual({ cite: 1, format: 0.1 });
    // 0.48 + 1·(−0.1) + 0.1·(−3) = 0.08
    expect(bad.reward).toBeCloseTo(0.08, 12);
    const clean = report.replace("| 2024 | 10 | 11 |", "| 2024 | 10 |");
    const good = await minddrReportReward(
      { ...run, report: clean },
      { race },
      { lambdaCite: 2, lambdaFormat: 0.5 },
    );
    expect([good.violations, good.problems, good.lambdas]).toEqual([
      { tag: 0, markdown: 0, citation: 0 },
      [],
      { cite: 2, format: 0.5 },
    ]);
    expect(good.reward).toBeCloseTo(0.48 + 2 * -0.1, 12);
  });
});
