import { describe, expect, it } from "vitest";
import { createOutline } from "../../core/outline.ts";
import { addNodes, type PlanGraph } from "../../core/plan-graph.ts";
import { checkLegality } from "../../core/plan-graph-legality.ts";
import { gapsForNode } from "./gaps.ts";
import { deterministicNodes, normaliseInitialNodes, uncoveredSections } from "./init.ts";
import { repairGraph } from "./plan.ts";
import { coarseGraph } from "./run.ts";

const outline = createOutline([
  { title: "Costs", plan: "cost figures" },
  { title: "Adoption", plan: "adoption figures" },
  { title: "Outlook", plan: "forecasts" },
]);
const surveyed = (): PlanGraph => {
  const g = coarseGraph(["a", "b"]);
  return { nodes: g.nodes.map((n) => (n.type === "report" ? n : { ...n, status: "done" as const })) };
};

describe("INITPLAN", () => {
  it("normalises the planner's nodes: fresh ids, known sections, live deps, depths below deps, no report nodes", () => {
    const nodes = normaliseInitialNodes(
      surveyed(),
      [
        {
          id: "T-1",
          type: "search",
          title: "Costs",
          goal: "cost",
          deps: ["T-4"],
          depth: 1,
          sections: ["1", "7"],
        },
        { id: "T-2", type: "report", title: "R", goal: "r", deps: [], depth: 2 },
        { id: "T-3", type: "llm", title: "Check", goal: "check", deps: ["T-1", "T-99", "T-2"], depth: 1 },
        { id: "T-8", type: "search", title: "Deep", goal: "deep", deps: ["T-3"], depth: 9 },
      ],
      outline,
      4,
    );
    expect(nodes).toEqual([
      { id: "T-5", type: "search", title: "Costs", goal: "cost", deps: [], depth: 2, sections: ["1"] },
      { id: "T-6", type: "llm", title: "Check", goal: "check", deps: ["T-5"], depth: 3 },
    ]);
  });

  it("adds one search node per level-1 section no live search node serves; the result is legal", () => {
    let graph = surveyed();
    graph = addNodes(graph, [
      { id: "T-5", type: "search", title: "c", goal: "c", deps: [], depth: 2, sections: ["1.2"] },
    ]);
    expect(uncoveredSections(graph, outline).map((s) => s.id)).toEqual(["2", "3"]);
    const filler = deterministicNodes(graph, outline);
    expect(filler).toMatchObject([
      { id: "T-6", type: "search", sections: ["2"], goal: "Adoption: adoption figures", depth: 2, deps: [] },
      { id: "T-7", type: "search", sections: ["3"], depth: 2 },
    ]);
    const repaired = repairGraph(
      { nodes: [...graph.nodes, ...filler.map((p) => ({ ...p, status: "pending" as const }))] },
      5,
    );
    expect(checkLegality(repaired)).toEqual([]);
    expect(repaired.nodes.find((n) => n.type === "report")).toMatchObject({ depth: 3 });
  });

  it("shows an inner agent only the gaps of its sections", () => {
    const rubric = {
      noFurtherRetrieval: false,
      gaps: [
        { type: "coverage-gap" as const, sections: ["2"], description: "gap two", action: "search" },
        { type: "conflict" as const, sections: ["3.1"], description: "gap three", action: "verify" },
      ],
    };
    expect(gapsForNode(rubric, { sections: ["2"] })).toContain("gap two");
    expect(gapsForNode(rubric, { sections: ["2"] })).not.toContain("gap three");
    expect(gapsForNode(rubric, { sections: ["3"] })).toContain("gap three");
    expect(gapsForNode(rubric, {})).toContain("gap three");
    expect(gapsForNode(null, { sections: ["2"] })).toBe("");
  });
});
