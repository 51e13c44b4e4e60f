/**
 * What the gap check reads per outline section: the serving nodes, their evidence first (read
 * passages before cut-off snippets), then the run's other evidence about the section, within the
 * section's character budget — shown whole while it fits, each passage cut to an even share when
 * it does not — and each passage written out once.
 */

import { describe, expect, it } from "vitest";
import { EvidenceRegistry } from "../../core/evidence-registry.ts";
import { createOutline } from "../../core/outline.ts";
import type { PlanGraph, PlanNode } from "../../core/plan-graph.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import type { RunContext } from "../../kit/run-context.ts";
import {
  evidenceBySection,
  GAP_MIN_PASSAGE_CHARS,
  GAP_SECTION_CHARS,
  passageCap,
  passagesWithin,
} from "./gap-evidence.ts";

const planned: PlannedOutline = {
  title: "T",
  outline: createOutline([
    { title: "Costs", plan: "cost figures" },
    { title: "Adoption", plan: "adoption figures" },
  ]),
  evidenceHints: {},
};

const node = (id: string, extra: Partial<PlanNode>): PlanNode => ({
  id,
  type: "search",
  title: `title ${id}`,
  goal: `goal ${id}`,
  deps: [],
  depth: 1,
  status: "done",
  ...extra,
});

/** A context holding evidence, and a way to add it to a source of that title. */
function withSources() {
  const ctx = { evidence: new EvidenceRegistry() } as unknown as Pick<RunContext, "evidence">;
  const sources = new Map<string, string>();
  const add = (title: string, text: string, tool = "read_page") => {
    if (!sources.has(title))
      sources.set(
        title,
        ctx.evidence.addSource({
          kind: "web",
          url: `https://${title.length}.example/${title}`,
          title,
          fetchedAt: "t",
        }).source.id,
      );
    return ctx.evidence.addEvidence({
      sourceId: sources.get(title)!,
      text,
      retrievedBy: { tool, callId: "c" },
    }).evidence.id;
  };
  return { ctx, add };
}

/** Excerpt lines of a section block: id and text. */
const excerpts = (block: string) =>
  [...block.matchAll(/^\[(E\d+)\] (.*)$/gm)].map((m) => ({ id: m[1]!, text: m[2]! }));

describe("the gap check's budget", () => {
  it("spreads evenly: what fits stays whole, a short passage gives the others what it leaves", () => {
    expect(passageCap([100, 120], 4000)).toBe(120);
    expect(passageCap([2000, 2000], 1000)).toBe(500);
    expect(passageCap([100, 5000, 5000], 1000)).toBe(450);
    expect(passagesWithin(GAP_SECTION_CHARS)).toBe(GAP_SECTION_CHARS / GAP_MIN_PASSAGE_CHARS);
    expect(passagesWithin(10)).toBe(1);
  });
});

describe("evidenceBySection", () => {
  it("shows each section's serving nodes and passages, a passage once", () => {
    const { ctx, add } = withSources();
    add("A", "Costs fell by a third in 2025.");
    add("A", "Adoption doubled across regions.");
    const graph: PlanGraph = {
      nodes: [node("T-1", { sections: ["1"] }), node("T-2", { sections: ["2"], status: "pending" })],
    };
    const results = new Map([["T-1", { summary: "s", evidenceIds: ["E1", "E2"] }]]);
    const [first, second] = evidenceBySection(ctx, { graph, planned, results }).split("\n\n");
    expect(first).toMatch(/^Section 1 Costs — served by T-1 \(2 evidence\)\nSource: A\n/);
    expect(excerpts(first!).map((e) => e.id)).toEqual(["E1", "E2"]);
    expect(second).toBe("Section 2 Adoption — no subtask has served it yet\nalso [E2] (above)");
    const empty = withSources();
    expect(evidenceBySection(empty.ctx, { graph, planned, results: new Map() })).toBe(
      "Section 1 Costs — no subtask has served it yet\n(no relevant excerpt)\n\n" +
        "Section 2 Adoption — no subtask has served it yet\n(no relevant excerpt)",
    );
  });

  it("shows a section's evidence whole while it fits the budget: more than three passages, long ones too", () => {
    const { ctx, add } = withSources();
    const long = (n: number) =>
      `Cost figures of plant ${n} fell in 2025, ${"as suppliers cut their prices across the regions, ".repeat(8)}said the survey.`;
    const ids = [1, 2, 3, 4, 5].map((n) => add(`Source ${n}`, long(n)));
    const graph: PlanGraph = { nodes: [node("T-1", { sections: ["1"] })] };
    const results = new Map([["T-1", { summary: "s", evidenceIds: ids }]]);
    const [first] = evidenceBySection(ctx, { graph, planned, results }).split("\n\n");
    const shown = excerpts(first!);
    expect(shown.map((e) => e.id).sort()).toEqual([...ids].sort());
    for (const e of shown)
      expect(e.text).toBe(ctx.evidence.getEvidence(e.id)!.text.replace(/\s+/g, " ").trim());
    expect(long(1).length).toBeGreaterThan(400);
  });

  it("beyond the budget, cuts each passage to an even share instead of dropping the later ones", () => {
    const { ctx, add } = withSources();
    const long = (n: number) =>
      `Cost figures of plant ${n} fell in 2025. ${"Suppliers cut their prices. ".repeat(30)}`;
    const ids = [1, 2, 3].map((n) => add(`Source ${n}`, long(n)));
    const graph: PlanGraph = { nodes: [node("T-1", { sections: ["1"] })] };
    const results = new Map([["T-1", { summary: "s", evidenceIds: ids }]]);
    const budget = 900;
    const [first] = evidenceBySection(ctx, { graph, planned, results, sectionChars: budget }).split("\n\n");
    const shown = excerpts(first!);
    expect(shown).toHaveLength(3);
    for (const e of shown) expect(e.text.replace(/ ?…/g, "").length).toBeLessThanOrEqual(budget / 3);
    // A small budget holds fewer passages: one per 250 characters.
    const small = evidenceBySection(ctx, { graph, planned, results, sectionChars: 500 }).split("\n\n")[0]!;
    expect(excerpts(small)).toHaveLength(2);
  });

  it("puts the serving nodes' own evidence first, read passages before snippets, others only when relevant", () => {
    const { ctx, add } = withSources();
    const snippet = add("Alpha", "Cost figures for 2024 show unit costs declining across the", "web_search");
    const passage = add("Beta", "A note about weather patterns in the north.");
    const other = add("Gamma", "Costs of storage dropped as cost figures improved.");
    add("Delta", "The festival drew large crowds this summer.");
    const graph: PlanGraph = {
      nodes: [node("T-1", { sections: ["1"] }), node("T-3", { sections: ["1.1", "2"], status: "failed" })],
    };
    const results = new Map([
      // E99 is not in the registry (a stale id): it is skipped.
      ["T-1", { summary: "s", evidenceIds: ["E99", snippet, passage] }],
    ]);
    const [first, second] = evidenceBySection(ctx, { graph, planned, results }).split("\n\n");
    expect(first).toMatch(/^Section 1 Costs — served by T-1 \(3 evidence\)\n/);
    // The weather note is T-1's own evidence, read: first, though it names no cost.
    expect(excerpts(first!).map((e) => e.id)).toEqual([passage, snippet, other]);
    expect(first).not.toContain("E99");
    // The festival names nothing of either section: never sent.
    expect(`${first}\n${second}`).not.toContain("festival");
    expect(second).toMatch(/^Section 2 Adoption — no subtask has served it yet\n/);
  });
});
