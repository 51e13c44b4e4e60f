import { describe, expect, it } from "vitest";
import type { PlanNode } from "../../core/plan-graph.ts";
import { describeNode, withoutCitations } from "./planner.ts";

const node: PlanNode = {
  id: "T-5",
  type: "search",
  title: "Battery costs",
  goal: "cell cost figures 2023–2025",
  deps: ["T-1"],
  depth: 2,
  sections: ["1", "2"],
  status: "done",
  result: {
    summary: "Cell costs fell 12% [E3] and\n pack costs 9% [E4, E7].",
    evidenceIds: ["E3", "E4", "E7"],
  },
};

describe("the planner's view of a node", () => {
  it("shows its result without evidence ids: the planner judges what it found and cites nothing", () => {
    expect(describeNode(node)).toBe(
      'T-5 [search, depth 2, done] "Battery costs" — cell cost figures 2023–2025; deps: T-1; sections: 1, 2; evidence: 3; result: Cell costs fell 12% and pack costs 9%.',
    );
  });

  it("cuts the result after the ids are gone", () => {
    expect(describeNode(node, 20)).toMatch(/; result: Cell costs fell 12%…$/);
  });

  it("removes single and grouped citations only", () => {
    expect(withoutCitations("A [E1], B [E2, E10] and [E3,E4]; [T-1] [see] stay.")).toBe(
      "A, B and; [T-1] [see] stay.",
    );
  });
});
