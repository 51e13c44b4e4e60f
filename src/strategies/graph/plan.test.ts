import { describe, expect, it } from "vitest";
import { addNodes, type PlanGraph, setNodeStatus } from "../../core/plan-graph.ts";
import { checkLegality } from "../../core/plan-graph-legality.ts";
import { mergeProposal, repairGraph } from "./plan.ts";

function base(): PlanGraph {
  let g = addNodes({ nodes: [] }, [
    { id: "T-1", type: "search", title: "a", goal: "a", deps: [], depth: 1 },
    { id: "T-2", type: "report", title: "r", goal: "r", deps: ["T-1"], depth: 2 },
  ]);
  g = setNodeStatus(g, "T-1", "running");
  return setNodeStatus(g, "T-1", "done", { summary: "x" });
}

describe("graph plan merging and repair", () => {
  it("reports a proposal whose new node the report does not depend on, and repairs it", () => {
    const proposal = [
      { id: "T-1", type: "search" as const, title: "a", goal: "a", deps: [], depth: 1 },
      { id: "T-3", type: "search" as const, title: "b", goal: "b", deps: ["T-1"], depth: 1 },
      { id: "T-2", type: "report" as const, title: "r", goal: "r", deps: ["T-1"], depth: 2 },
    ];
    const merged = mergeProposal(base(), proposal, 5);
    expect(merged.violations.map((v) => v.code).sort()).toEqual(["DEP_DEPTH", "REPORT_DEPS"]);
    const repaired = repairGraph(merged.graph, 5);
    expect(checkLegality(repaired, { maxDepth: 5 })).toEqual([]);
    const t3 = repaired.nodes.find((n) => n.id === "T-3")!;
    expect(t3.depth).toBe(2);
    expect(repaired.nodes.find((n) => n.id === "T-2")).toMatchObject({ deps: ["T-1", "T-3"], depth: 3 });
    // The executed node is untouched.
    expect(repaired.nodes.find((n) => n.id === "T-1")).toEqual(base().nodes[0]);
  });

  it("moves a node below a dependency listed after it, however late that dependency moves", () => {
    // T-3 depends on T-4, listed after it; T-4 depends on T-5, listed after both; all at depth 1.
    const proposal = [
      { id: "T-1", type: "search" as const, title: "a", goal: "a", deps: [], depth: 1 },
      { id: "T-3", type: "llm" as const, title: "b", goal: "b", deps: ["T-4"], depth: 1 },
      { id: "T-4", type: "llm" as const, title: "c", goal: "c", deps: ["T-5"], depth: 1 },
      { id: "T-5", type: "search" as const, title: "d", goal: "d", deps: ["T-1"], depth: 1 },
      {
        id: "T-2",
        type: "report" as const,
        title: "r",
        goal: "r",
        deps: ["T-1", "T-3", "T-4", "T-5"],
        depth: 2,
      },
    ];
    const merged = mergeProposal(base(), proposal, 5);
    expect(new Set(merged.violations.map((v) => v.code))).toEqual(new Set(["DEP_DEPTH"]));
    const repaired = repairGraph(merged.graph, 5);
    expect(checkLegality(repaired, { maxDepth: 5 })).toEqual([]);
    const depth = (id: string) => repaired.nodes.find((n) => n.id === id)!.depth;
    expect([depth("T-5"), depth("T-4"), depth("T-3"), depth("T-2")]).toEqual([2, 3, 4, 5]);
    // Every dependency the proposal named is kept.
    expect(repaired.nodes.find((n) => n.id === "T-3")!.deps).toEqual(["T-4"]);
    expect(repaired.nodes.find((n) => n.id === "T-4")!.deps).toEqual(["T-5"]);
  });

  it("cannot repair a cycle among new nodes", () => {
    const proposal = [
      { id: "T-1", type: "search" as const, title: "a", goal: "a", deps: [], depth: 1 },
      { id: "T-3", type: "search" as const, title: "b", goal: "b", deps: ["T-4"], depth: 2 },
      { id: "T-4", type: "search" as const, title: "c", goal: "c", deps: ["T-3"], depth: 2 },
      { id: "T-2", type: "report" as const, title: "r", goal: "r", deps: ["T-1", "T-3", "T-4"], depth: 3 },
    ];
    const merged = mergeProposal(base(), proposal, 5);
    expect(merged.violations.some((v) => v.code === "CYCLE")).toBe(true);
    expect(checkLegality(repairGraph(merged.graph, 5), { maxDepth: 5 }).some((v) => v.code === "CYCLE")).toBe(
      true,
    );
  });

  it("adds a report node when the proposal dropped it, and prunes a second one", () => {
    const noReport = repairGraph({ nodes: base().nodes.filter((n) => n.type !== "report") }, 5);
    expect(noReport.nodes.filter((n) => n.type === "report")).toMatchObject([
      { deps: ["T-1"], depth: 2, status: "pending" },
    ]);
    const two = addNodes(base(), [
      { id: "T-9", type: "report", title: "r2", goal: "r2", deps: ["T-1"], depth: 2 },
    ]);
    const fixed = repairGraph(two, 5);
    expect(fixed.nodes.filter((n) => n.type === "report" && n.status !== "pruned").map((n) => n.id)).toEqual([
      "T-2",
    ]);
    expect(checkLegality(fixed, { maxDepth: 5 })).toEqual([]);
  });
});
