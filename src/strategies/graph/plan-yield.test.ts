import { describe, expect, it } from "vitest";
import type { PlanGraph, PlanNode } from "../../core/plan-graph.ts";
import { emptyPlanMessage } from "./plan-yield.ts";
import { coarseGraph } from "./run.ts";

const node = (id: string, status: PlanNode["status"], type: PlanNode["type"] = "search"): PlanNode => ({
  id,
  type,
  title: id,
  goal: id,
  deps: [],
  depth: 2,
  status,
});
const surveyed = (...nodes: PlanNode[]): PlanGraph => {
  const coarse = coarseGraph(["a", "b"]).nodes.map((n) =>
    n.type === "report" ? n : { ...n, status: "done" as const },
  );
  return { nodes: [...coarse, ...nodes] };
};

describe("a plan whose subtasks gave nothing", () => {
  it("is named when every search and llm node the loop ran failed, whatever the broad searches did", () => {
    expect(
      emptyPlanMessage(surveyed(node("T-5", "failed"), node("T-6", "failed", "llm"), node("T-7", "pending"))),
    ).toBe("every subtask of the plan failed (T-5, T-6): the report rests on the broad searches alone");
  });

  it("is not named when one subtask gave something, when none ran, or for the broad searches' own failures", () => {
    expect(emptyPlanMessage(surveyed(node("T-5", "failed"), node("T-6", "done", "llm")))).toBeNull();
    expect(emptyPlanMessage(surveyed(node("T-5", "done"), node("T-6", "failed")))).toBeNull();
    expect(emptyPlanMessage(surveyed(node("T-5", "pending"), node("T-6", "pruned")))).toBeNull();
    const failedSurvey = surveyed(node("T-5", "done"));
    failedSurvey.nodes[0] = { ...failedSurvey.nodes[0]!, status: "failed" };
    expect(emptyPlanMessage(failedSurvey)).toBeNull();
    expect(emptyPlanMessage(surveyed(node("T-5", "running")))).toBeNull();
  });
});
