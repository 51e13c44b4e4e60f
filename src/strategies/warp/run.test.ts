import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall } from "../../../test/scripted/scripted-model.ts";
import {
  cleanup,
  drafts,
  eventsOf,
  expand,
  keywords,
  MARK,
  outline,
  passageIds,
  passageTexts,
  researchWarp,
  step,
  terminate,
  WARP_QUESTION,
  warpDossier,
  write,
} from "../../../test/warp/kit.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent } from "../../core/events.ts";
import { flattenOutline, type Outline, validateOutline } from "../../core/outline.ts";
import { bestIndex } from "./pruning.ts";
import { citedEvidenceIds, cjkShare, contentProblems } from "./writer.ts";

afterEach(cleanup);

const question = WARP_QUESTION;
const written = (events: DossierEvent[]) =>
  events.flatMap((e) => (e.type === "section-written" ? [e.sectionId] : []));
const of = eventsOf;

function run(
  dossier: ReturnType<typeof warpDossier>["dossier"],
  docs: string,
  strategyOptions: Record<string, unknown> = {},
  budget: Record<string, number> = {},
) {
  return researchWarp(dossier, docs, strategyOptions, { budget });
}

describe("warp protocol", () => {
  it("initializes, drafts leaves in document order, deepens, terminates, and cites only what it was given", async () => {
    const { dossier, model, docs } = warpDossier([
      step("search", keywords("heat pump", "cold climate")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", expand("section-2", "Installation", "Running costs", "Subsidies")),
      ...drafts(["S2.1", "S2.2", "S2.3"]),
      step("deepen", expand("section-2.2", "Electricity prices", "Maintenance")),
      ...drafts(["S2.2.1", "S2.2.2"]),
      step("deepen", terminate),
    ]);
    const { result, events } = await run(dossier, docs);
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("completed");

    // Depth-first document order, new leaves right after their expansion.
    expect(written(events)).toEqual(["1", "2", "3", "2.1", "2.2", "2.3", "2.2.1", "2.2.2"]);
    const order = model.calls.map((c) => Object.entries(MARK).find(([, m]) => c.prompt.includes(m))![0]);
    expect(order.slice(0, 4)).toEqual(["search", "initialize", "search", "write"]);

    // Every prompt is rebuilt from the state: one system and one user message, no earlier turns.
    for (const call of model.calls)
      expect(call.options.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    // ...and it carries the draft so far: section 3's writer sees sections 1 and 2.
    const writes = model.calls.filter((c) => c.prompt.includes(MARK.write));
    expect(writes[2]!.lastUser).toContain("S1: the passages");
    expect(writes[2]!.lastUser).toContain("S2: the passages");
    expect(writes[0]!.lastUser).not.toContain("S1:");
    // The deepener sees the whole draft and only expandable candidates.
    const deepens = model.calls.filter((c) => c.prompt.includes(MARK.deepen));
    expect(deepens[0]!.lastUser).toContain("S3: the passages");
    expect(deepens[1]!.lastUser).not.toMatch(/^- section-2 /m);
    expect(deepens[2]!.lastUser).not.toMatch(/^- section-2\.2 /m);
    expect(deepens[2]!.lastUser).not.toMatch(/^- section-2\.2\.1 /m);

    // TERMINATE ended the deepening: a stop decision, and no call after it (strict script).
    const stops = of(events, "decision").filter((e) => e.decision === "stop");
    expect(stops.at(-1)!.reason).toBe("the policy terminated");

    // The trajectory: one step per action, in order, with the state each saw.
    const steps = of(events, "trajectory-step");
    expect(steps.map((s) => s.step)).toEqual(steps.map((_, i) => i + 1));
    expect(steps.map((s) => s.action).slice(0, 4)).toEqual(["search", "initialize", "search", "write"]);
    expect(steps.filter((s) => s.action === "expand")).toHaveLength(2);
    expect(steps.at(-1)!.action).toBe("terminate");
    const firstWrite = steps.find((s) => s.action === "write")!;
    expect(firstWrite.state).toMatchObject({ target: "section-1", written: [] });
    expect((firstWrite.answer as { content: string }).content).toContain("S1:");

    // The report: headings by depth, every citation resolves, nothing dropped.
    const report = result.report!;
    expect(report.body).toContain("## Costs\n");
    expect(report.body).toContain("### Running costs\n");
    expect(report.body).toContain("#### Maintenance\n");
    expect(report.checks.citations.dropped).toBe(0);
    expect(report.checks.headings.problems).toBe(0);
    const numbers = citedNumbers(report.body);
    expect(numbers.length).toBeGreaterThan(0);
    expect(Math.max(...numbers)).toBe(report.references.length);
    for (const ref of report.references) expect(ref.locator).toMatch(/^note-\d+\.md#/);
    const final = report.outline as Outline;
    expect(validateOutline(final)).toEqual([]);
    expect(Math.max(...flattenOutline(final).map((s) => s.depth))).toBe(3);
  });

  it("caps keywords, passages and citations, dedups passages with stable ids, and re-asks invalid answers in place", async () => {
    const seven = keywords("a1", "a2", "a3", "a4", "a5", "a6", "a7");
    const five = keywords("coefficient", "euros", "peak", "decibels", "maintenance");
    const cite = (call: ScriptedCall, n: number) =>
      passageIds(call.prompt)
        .slice(0, n)
        .map((id) => `[${id}]`)
        .join(" ");
    const { dossier, model, docs } = warpDossier(
      [
        step("search", seven),
        step("search", five),
        step("initialize", { ...outline("Efficiency", "Costs"), name: "initialize" }),
        step("initialize", outline("Efficiency", "Costs", "Grid")),
        step("search", keywords("coefficient", "euros", "decibels")),
        step("write", (c) => ({
          name: "write",
          content: `## Heading\n\nA paragraph that opens with a heading, which a section must not have ${cite(c, 2)}.`,
        })),
        step("write", (c) => ({
          name: "write",
          content: `This paragraph cites a passage it was never given [E999] and one it was ${cite(c, 1)}.`,
        })),
        step("write", write("S1", 3)),
        step("search", keywords("installation cost")),
        step("write", (c) => ({ name: "write", content: `Too short ${cite(c, 1)}` })),
        step("write", (c) => ({
          name: "write",
          content: `热泵在寒冷气候下的安装费用平均为九千欧元左右，调查显示差异很大 ${cite(c, 2)}。`,
        })),
        step("write", write("S2")),
        step("search", keywords("grid peak")),
        step("write", {
          name: "write",
          content: "No citation at all in this paragraph, which is long enough.",
        }),
        step("write", {
          name: "write",
          content: "Still no citation in this paragraph, which is long enough too.",
        }),
        step("write", {
          name: "write",
          position: "section-1",
          content: "Wrong section again, long enough [E1].",
        }),
        step("deepen", terminate),
      ],
      12,
    );
    const { result, events } = await run(dossier, docs);
    expect(result.status).toBe("completed");

    // SEARCH: 7 keywords were refused and re-asked; each keyword is one local search for its top 5.
    const searches = of(events, "tool-start").filter((e) => e.tool === "local_search");
    expect(searches.slice(0, 5).map((e) => (e.args as { query: string }).query)).toEqual(five.keywords);
    for (const s of searches) expect(s.args).toMatchObject({ topK: 5 });
    expect(searches).toHaveLength(5 + 3 + 1 + 1);

    // Passages: ≤ 20 at initialisation, ≤ 10 per section, exact-text deduplicated, ids stable.
    const init = model.calls.find((c) => c.prompt.includes(MARK.initialize))!;
    const initIds = passageIds(init.lastUser);
    expect(initIds.length).toBe(20);
    const writes = model.calls.filter((c) => c.prompt.includes(MARK.write) && c.options.prompt.length === 2);
    expect(writes).toHaveLength(3);
    const idOfText = new Map<string, string>();
    for (const call of [init, ...writes]) {
      const ids = passageIds(call.lastUser);
      const texts = passageTexts(call.lastUser);
      expect(ids.length).toBeLessThanOrEqual(call === init ? 20 : 10);
      expect(new Set(texts).size).toBe(texts.length);
      texts.forEach((t, i) => {
        if (idOfText.has(t)) expect(idOfText.get(t)).toBe(ids[i]);
        idOfText.set(t, ids[i]!);
      });
    }
    expect(passageIds(writes[0]!.lastUser)).toHaveLength(10);
    // The first section's passages include ones already surveyed, under the same ids.
    expect(passageIds(writes[0]!.lastUser).some((id) => initIds.includes(id))).toBe(true);

    // Invalid answers were re-asked in place: the original prompt, the answer, then the reason.
    const errors = of(events, "format-error").map((e) => e.error);
    expect(errors).toHaveLength(9);
    expect(errors[0]).toMatch(/keywords/);
    expect(errors[2]).toMatch(/headings/);
    expect(errors[3]).toMatch(/not given: E999/);
    expect(errors[4]).toMatch(/longer than 50/);
    expect(errors[5]).toMatch(/language of the question/);
    expect(errors[6]).toMatch(/cite at least one/);
    expect(errors[7]).toMatch(/cite at least one/);
    expect(errors[8]).toMatch(/write section-3 only/);
    const repair = model.calls.find((c) => c.options.prompt.length === 4 && c.prompt.includes(MARK.write))!;
    expect(repair.options.prompt.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);

    // Section 3 got no valid answer: an extractive fallback of its passages, still cited.
    const warnings = of(events, "warning").map((e) => e.code);
    expect(warnings).toEqual(["SECTION_FALLBACK"]);
    const report = result.report!;
    expect(report.body).toContain("S1: the passages");
    expect(report.checks.citations.dropped).toBe(0);
    const s1 = of(events, "trajectory-step").find((s) => s.action === "write")!;
    expect(citedEvidenceIds((s1.answer as { content: string }).content)).toHaveLength(3);
  });

  it("expands only level-1/2 sections never expanded, into 2-7 subsections, at most 3 levels deep", async () => {
    const { dossier, model, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", expand("section-9", "A", "B")),
      step("deepen", expand("section-1", "Only child")),
      step("deepen", expand("section-1", "Field trials", "Lab tests")),
      ...drafts(["S1.1", "S1.2"]),
      step("deepen", expand("section-1", "Again", "Twice")),
      step("deepen", expand("section-1.1", "a", "b", "c", "d", "e", "f", "g", "h")),
      step("deepen", expand("1.1", "Northern trials", "Alpine trials")),
      ...drafts(["S1.1.1", "S1.1.2"]),
      step("deepen", expand("section-1.1.1", "Too", "Deep")),
      step("deepen", terminate),
    ]);
    const { result, events } = await run(dossier, docs);
    expect(result.status).toBe("completed");
    const errors = of(events, "format-error").map((e) => e.error);
    expect(errors).toHaveLength(5);
    expect(errors[0]).toMatch(/section-9 cannot be expanded/);
    expect(errors[1]).toMatch(/subsections/);
    expect(errors[2]).toMatch(/section-1 cannot be expanded/);
    expect(errors[3]).toMatch(/subsections/);
    expect(errors[4]).toMatch(/section-1\.1\.1 cannot be expanded/);
    const expansions = of(events, "trajectory-step").filter((s) => s.action === "expand");
    expect(expansions.map((s) => (s.answer as { position: string }).position)).toEqual([
      "section-1",
      "section-1.1",
    ]);
    expect(written(events)).toEqual(["1", "2", "3", "1.1", "1.2", "1.1.1", "1.1.2"]);
    const final = result.report!.outline as Outline;
    expect(validateOutline(final)).toEqual([]);
    for (const s of flattenOutline(final)) {
      expect(s.depth).toBeLessThanOrEqual(3);
      expect([0, 2, 3, 4, 5, 6, 7]).toContain(s.children.length);
    }
    expect(model.calls.filter((c) => c.prompt.includes(MARK.deepen))).toHaveLength(8);
  });

  it("stops deepening at maxExpansions, and at 12 expansions by default", async () => {
    const capped = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", expand("section-1", "A", "B")),
      ...drafts(["S1.1", "S1.2"]),
      step("deepen", expand("section-2", "C", "D")),
      ...drafts(["S2.1", "S2.2"]),
    ]);
    const small = await run(capped.dossier, capped.docs, { maxExpansions: 2 });
    expect(of(small.events, "decision").at(-1)!.reason).toBe("expansion cap reached (2)");

    // Five sections and their children give 15 candidates; the policy would expand forever.
    const titles = ["One", "Two", "Three", "Four", "Five"];
    const order = ["1", "2", "3", "4", "5", "1.1", "1.2", "2.1", "2.2", "3.1", "3.2", "4.1"];
    const steps = [
      step("search", keywords("heat pump")),
      step("initialize", outline(...titles)),
      ...drafts(titles),
      ...order.flatMap((id) => [
        step("deepen", expand(`section-${id}`, `${id} a`, `${id} b`)),
        ...drafts(["x", "y"]),
      ]),
    ];
    const full = warpDossier(steps);
    const { result, events } = await run(full.dossier, full.docs);
    expect(result.status).toBe("completed");
    expect(of(events, "trajectory-step").filter((s) => s.action === "expand")).toHaveLength(12);
    expect(of(events, "decision").at(-1)!.reason).toBe("expansion cap reached (12)");
    expect(full.dossier.estimate(question, { strategy: "warp", docs: full.docs })).toBeTruthy();
    await expect(
      full.dossier.research(question, {
        strategy: "warp",
        strategyOptions: { maxExpansions: 13 },
        docs: full.docs,
      }).done,
    ).rejects.toThrow(/maxExpansions/);
  });

  it("forced expansion reaches N, snapshots every draft and cuts the trajectory at the best-scored one", async () => {
    const rubric = [
      ...[1, 2, 3].map((i) => ({
        title: `Key ${i}`,
        description: `Key Criterion: covers aspect ${i}.`,
        weight: 5,
      })),
      ...[1, 2].map((i) => ({
        title: `Imp ${i}`,
        description: `Important Criterion: explains ${i}.`,
        weight: 3,
      })),
      { title: "Opt", description: "Optional Criterion: gives an example.", weight: 1 },
      { title: "Err", description: "Error Criterion: states a wrong figure.", weight: -1 },
    ];
    // The judge prefers the draft after the first expansion (S1.1 written, S2.1 not yet).
    const judge = (call: ScriptedCall) => ({
      reason: "scripted",
      rating: call.lastUser.includes("S1.1:") && !call.lastUser.includes("S2.1:") ? 9 : 4,
    });
    const { dossier, model, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", terminate),
      step("deepen", expand("section-1", "Field trials", "Lab tests")),
      ...drafts(["S1.1", "S1.2"]),
      step("deepen", expand("section-2", "Installation", "Running")),
      ...drafts(["S2.1", "S2.2"]),
      step("rubric", rubric),
      ...Array.from({ length: 21 }, () => step("judge", judge)),
    ]);
    const { result, events } = await run(dossier, docs, { forceExpand: 2 });
    expect(result.status).toBe("completed");
    // TERMINATE is not offered in forced mode: it was refused and re-asked.
    const deepen = model.calls.filter((c) => c.prompt.includes(MARK.deepen));
    expect(deepen[0]!.system).toContain("must expand");
    expect(of(events, "format-error")).toHaveLength(1);
    expect(of(events, "trajectory-step").filter((s) => s.action === "expand")).toHaveLength(2);

    const snapshots = of(events, "draft-snapshot");
    expect(snapshots.map((s) => s.expansions)).toEqual([0, 1, 2]);
    expect(snapshots[2]!.markdown).toContain("S2.1:");
    const scored = of(events, "draft-scored");
    expect(scored.map((s) => s.index)).toEqual([0, 1, 2]);
    const scores = scored.map((s) => s.score!);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
    const cut = of(events, "decision").at(-1)!;
    expect(cut.details).toMatchObject({ cut: 1, expansions: 1, scorer: "rubric" });
    const last = of(events, "trajectory-step").at(-1)!;
    expect(last).toMatchObject({ action: "terminate", state: { cut: 1, relabelled: true } });

    // The report is the cut draft.
    const report = result.report!;
    expect(report.body).toContain("S1.1:");
    expect(report.body).not.toContain("S2.1:");
    expect(report.checks.citations.dropped).toBe(0);
  });

  it("forced expansion with the grounding scorer scores every draft without a model call", async () => {
    const { dossier, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", expand("section-3", "Peaks", "Storage")),
      ...drafts(["S3.1", "S3.2"]),
    ]);
    const { result, events } = await run(dossier, docs, { forceExpand: 1, scorer: "grounding" });
    expect(result.status).toBe("completed");
    const scored = of(events, "draft-scored");
    expect(scored.map((s) => [s.index, s.scorer])).toEqual([
      [0, "grounding"],
      [1, "grounding"],
    ]);
    for (const s of scored) expect(s.score).toBeGreaterThanOrEqual(0);
    const cut = (of(events, "decision").at(-1)!.details as { cut: number }).cut;
    const snapshot = of(events, "draft-snapshot")[cut]!;
    // The report is the cut draft (same body and references).
    // (the claim check's one-line summary follows it)
    expect(result.markdown!.replace(/\n\n---\n\nClaim check [^\n]*\n?$/, "")).toBe(
      snapshot.markdown.trimEnd(),
    );
  });

  it("takes its documented fallbacks when the outline or the deepening decision never validates", async () => {
    const bad = { name: "initialize", title: "x" };
    const { dossier, docs } = warpDossier([
      step("search", keywords("heat pump", "grid")),
      step("initialize", bad),
      step("initialize", bad),
      step("initialize", bad),
      ...drafts(["S1", "S2"]),
      step("deepen", { name: "expand" }),
      step("deepen", { name: "expand" }),
      step("deepen", { name: "expand" }),
    ]);
    const { result, events } = await run(dossier, docs);
    expect(result.status).toBe("completed");
    expect(of(events, "warning").map((e) => e.code)).toEqual(["INIT_FALLBACK", "DEEPEN_FALLBACK"]);
    // One section per survey keyword; the deepening ended; the report stands.
    expect(result.report!.body).toContain("## heat pump\n");
    expect(result.report!.body).toContain("## grid\n");
    expect(of(events, "decision").at(-1)!.reason).toBe("deepening decision failed");
    expect(citedNumbers(result.report!.body).length).toBeGreaterThan(0);
  });

  it("stops exploring at a budget limit and still writes the report from the draft", async () => {
    const { dossier, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2"]),
    ]);
    const { result, events } = await run(dossier, docs, {}, { maxToolCalls: 3 });
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("budget:toolCalls");
    expect(of(events, "tool-start")).toHaveLength(3);
    expect(written(events)).toEqual(["1", "2"]);
    const report = result.report!;
    expect(report.body).toContain("S2: the passages");
    expect(report.body).not.toContain("## Grid");
    expect(citedNumbers(report.body).length).toBeGreaterThan(0);
  });
});

describe("warp: no research, no completed run", () => {
  it("a policy that terminates instead of its first search is re-asked, then the engine searches the question", async () => {
    const { dossier, model, docs } = warpDossier([
      step("search", terminate),
      step("search", terminate),
      step("search", terminate),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", terminate),
    ]);
    const { result, events } = await run(dossier, docs);
    // Each re-ask named the problem; the fallback searched the question itself.
    const surveys = model.calls.filter((c) => c.prompt.includes(MARK.search)).slice(0, 3);
    expect(surveys).toHaveLength(3);
    for (const c of surveys.slice(1)) expect(c.lastUser).toMatch(/^Your answer could not be used: /);
    expect(of(events, "warning").map((w) => w.code)).toEqual(["SEARCH_FALLBACK"]);
    const first = of(events, "tool-start")[0]!;
    expect((first.args as { query: string }).query).toBe(question);
    expect(result.status).toBe("completed");
    expect(written(events)).toEqual(["1", "2", "3"]);
  });
});

describe("warp outline language", () => {
  it("re-asks an outline or an expansion that is not in the run's language", async () => {
    const zh = { title: "热泵", plan: "热泵在寒冷气候下的表现" };
    const { dossier, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", { name: "initialize", title: "热泵报告", sections: [zh, zh, zh] }),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", { name: "expand", position: "section-1", subsections: [zh, zh] }),
      step("deepen", terminate),
    ]);
    const { result, events } = await run(dossier, docs);
    expect(result.status).toBe("completed");
    const errors = of(events, "format-error").map((e) => e.error);
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e).toMatch(/language of the question/);
  });
});

describe("warp step cap", () => {
  it("counts every policy call, re-asks included, and stops at maxSteps with the draft so far", async () => {
    const { dossier, model, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      step("search", keywords("heat pump")),
      step("write", { name: "write", content: "Too short [E1]" }),
      step("write", write("S1")),
      step("search", keywords("heat pump")),
    ]);
    const { result, events } = await run(dossier, docs, { maxSteps: 6 });
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("step-cap");
    expect(model.calls).toHaveLength(6);
    // Section 2 got its SEARCH as the sixth step and nothing more: it is left out, not filled in.
    expect(written(events)).toEqual(["1"]);
    expect(of(events, "warning")).toEqual([]);
    const stop = of(events, "decision").at(-1)!;
    expect(stop.reason).toBe("exploration stopped: step-cap");
    expect(stop.details).toMatchObject({ steps: 6 });
    expect(result.report!.body).toContain("S1: the passages");
    expect(result.report!.body).not.toContain("## Costs");
  });

  it("bounds the re-asks of an action by the steps left", async () => {
    const { dossier, model, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", { name: "initialize", title: "x" }),
    ]);
    const { result, events } = await run(dossier, docs, { maxSteps: 2 });
    // One step was left for the outline: no re-ask, the fallback outline, then the cap.
    expect(model.calls).toHaveLength(2);
    expect(of(events, "warning").map((e) => e.code)).toEqual(["INIT_FALLBACK"]);
    expect(of(events, "decision").at(-1)!.reason).toBe("exploration stopped: step-cap");
    // Nothing was written from the evidence searched: not a completed run.
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("NO_RESEARCH");
  });
});

describe("warp budgets", () => {
  it("makes no call beyond a token budget too small for the first action, and is not completed", async () => {
    const { dossier, model, docs } = warpDossier([]);
    const { result, events } = await run(dossier, docs, {}, { maxTokens: 100 });
    expect(model.calls).toHaveLength(0);
    expect(of(events, "tool-start")).toHaveLength(0);
    expect(of(events, "warning").map((e) => e.code)).toEqual(["BUDGET_EXCEEDED"]);
    // No research was done: the run fails with the budget's limit instead of an empty report.
    expect(result.status).toBe("failed");
    expect(result.stopReason).toBe("budget:tokens");
    expect(result.error).toMatchObject({
      code: "BUDGET_EXCEEDED",
      message: expect.stringMatching(/before the run did research: no tool call was made/),
    });
  });

  it("counts each deepening decision as an iteration of the outer loop", async () => {
    const { dossier, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", expand("section-1", "A", "B")),
      ...drafts(["S1.1", "S1.2"]),
    ]);
    const { result, events } = await run(dossier, docs, {}, { maxIterations: 1 });
    expect(result.stopReason).toBe("budget:iterations");
    expect(written(events)).toEqual(["1", "2", "3", "1.1", "1.2"]);
    expect(result.report!.body).toContain("S1.2: the passages");
  });
});

describe("warp content rules", () => {
  const allowed = new Set(Array.from({ length: 14 }, (_, i) => `E${i + 1}`));
  const cites = (n: number) => Array.from({ length: n }, (_, i) => `[E${i + 1}]`).join(" ");
  it("counts distinct citations (1-12), refuses headings and short text, and applies the CJK share rule", () => {
    const long = "Heat pumps kept their efficiency in the cold according to the field trial";
    expect(contentProblems(`${long} ${cites(12)}.`, { allowed, language: "en" })).toEqual([]);
    expect(contentProblems(`${long} ${cites(13)}.`, { allowed, language: "en" })).toEqual([
      "cite at most 12 distinct passages, not 13",
    ]);
    expect(contentProblems(`${long} [E1] [E1, E2] [E2].`, { allowed, language: "en" })).toEqual([]);
    expect(contentProblems(`${long}.`, { allowed, language: "en" })[0]).toMatch(/at least one/);
    expect(contentProblems(`### Title\n${long} [E1].`, { allowed, language: "en" })[0]).toMatch(/headings/);
    const zh = "热泵在寒冷气候下仍然保持较高的能效，现场试验的季节性能系数超过二。";
    expect(contentProblems(`${zh}${zh} [E1]`, { allowed, language: "zh" })).toEqual([]);
    expect(contentProblems(`${long} [E1].`, { allowed, language: "zh" })).toEqual([
      "write in the language of the question",
    ]);
    expect(contentProblems(`${zh}${zh} [E1]`, { allowed, language: "en" })).toEqual([
      "write in the language of the question",
    ]);
    // Citation tokens and URLs do not count as Latin letters.
    expect(cjkShare(`${zh} [E1, E2] https://example.org/abc`)).toBe(1);
  });

  it("uses the seed's thresholds: over 60% CJK in a CJK language, under 1% in any other", () => {
    const latin =
      "Heat pumps kept their efficiency in the cold according to the field trial run in the north";
    // Two ideographs among some 75 letters: 2.6%, refused in English (the seed's 1%).
    expect(contentProblems(`${latin} 北京 [E1].`, { allowed, language: "en" })).toEqual([
      "write in the language of the question",
    ]);
    expect(contentProblems(`${latin}${latin} 京 [E1].`, { allowed, language: "en" })).toEqual([]);
    // 55% CJK is not enough for Chinese.
    const mixed = `${"热".repeat(55)} ${"a".repeat(45)} [E1]`;
    expect(cjkShare(mixed)).toBeCloseTo(0.55);
    expect(contentProblems(mixed, { allowed, language: "zh" })).toEqual([
      "write in the language of the question",
    ]);
    expect(contentProblems(`${"热".repeat(61)} ${"a".repeat(39)} [E1]`, { allowed, language: "zh" })).toEqual(
      [],
    );
  });

  it("picks the best score, the earliest on ties, the last draft when none is scored", () => {
    expect(bestIndex([0.2, 0.7, 0.7, 0.1])).toBe(1);
    expect(bestIndex([null, 0.3, null])).toBe(1);
    expect(bestIndex([null, null])).toBe(1);
  });
});
