import { describe, expect, it } from "vitest";
import { checkLegality } from "../../core/plan-graph-legality.ts";
import { coarseGraph } from "./run.ts";

describe("coarseGraph", () => {
  it("surveys at most three broad queries, then the outline, then the report", () => {
    const graph = coarseGraph(["alpha", "beta", "gamma", "delta"]);
    expect(graph.nodes).toStrictEqual([
      {
        id: "T-1",
        type: "search",
        title: "Survey 1",
        goal: "alpha",
        deps: [],
        depth: 1,
        status: "pending",
      },
      {
        id: "T-2",
        type: "search",
        title: "Survey 2",
        goal: "beta",
        deps: [],
        depth: 1,
        status: "pending",
      },
      {
        id: "T-3",
        type: "search",
        title: "Survey 3",
        goal: "gamma",
        deps: [],
        depth: 1,
        status: "pending",
      },
      {
        id: "T-4",
        type: "outline",
        title: "Outline",
        goal: "Build the report outline from the survey",
        deps: ["T-1", "T-2", "T-3"],
        depth: 2,
        status: "pending",
      },
      {
        id: "T-5",
        type: "report",
        title: "Report",
        goal: "Write the report",
        deps: ["T-1", "T-2", "T-3", "T-4"],
        depth: 3,
        status: "pending",
      },
    ]);
    expect(checkLegality(graph)).toEqual([]);
  });

  it("keeps the whole query as a survey's goal, not repeated in its title", () => {
    const query = "q".repeat(200);
    const [survey] = coarseGraph([query]).nodes;
    expect(survey!.title).toBe("Survey 1");
    expect(survey!.goal).toBe(query);
    expect(coarseGraph([]).nodes.map((n) => [n.id, n.type, n.deps])).toEqual([
      ["T-1", "outline", []],
      ["T-2", "report", ["T-1"]],
    ]);
  });
});
