import { describe, expect, it } from "vitest";
import { runSteps } from "./run-steps.ts";
import { fixtureCall, fixtureRun, fixtureTool } from "./test-fixtures.ts";

describe("run steps", () => {
  const run = fixtureRun({
    calls: [
      fixtureCall({ callId: "L1", step: 1, scope: "search:T-1", completion: "think 1" }),
      fixtureCall({ callId: "L2", step: 1, scope: "search:T-2", completion: "other agent" }),
      fixtureCall({
        callId: "L3",
        step: 2,
        scope: "search:T-1",
        completion: "bad",
        formatErrors: ["not JSON"],
      }),
      fixtureCall({ callId: "L4", step: 2, scope: "search:T-1", completion: "repaired" }),
      fixtureCall({ callId: "L5", step: 1, scope: "writer", role: "writer", completion: "report" }),
    ],
    toolCalls: [
      fixtureTool({ callId: "T1", scope: "search:T-1", step: 1, observation: "page text" }),
      fixtureTool({ callId: "T2", scope: "search:T-1", step: 2, ok: false }),
      fixtureTool({ callId: "T3", scope: "search:T-1" }),
    ],
    evidence: [
      { id: "E1", sourceId: "S1", text: "passage one", retrievedBy: { tool: "web_search", callId: "T1" } },
      { id: "E2", sourceId: "S1", text: "passage two", retrievedBy: { tool: "web_search", callId: "T1" } },
    ],
  });

  it("groups calls by scope and step, in order of their first call, with their tool calls and observations", () => {
    const steps = runSteps(run);
    expect(
      steps.map((s) => [s.scope, s.step, s.calls.map((c) => c.callId), s.toolCalls.map((t) => t.callId)]),
    ).toEqual([
      ["search:T-1", 1, ["L1"], ["T1"]],
      ["search:T-2", 1, ["L2"], []],
      ["search:T-1", 2, ["L3", "L4"], ["T2"]],
      ["writer", 1, ["L5"], []],
    ]);
    expect(steps[0]!.reasoning).toEqual(["think 1"]);
    expect(steps[0]!.observations).toEqual(["page text", "passage one", "passage two"]);
  });

  it("marks a step whose repair round raised a format error as not format-valid", () => {
    expect(runSteps(run).map((s) => s.formatOk)).toEqual([true, true, false, true]);
  });

  it("keeps only the scopes asked for", () => {
    const steps = runSteps(run, { scope: (s) => s.startsWith("search:") });
    expect(steps.map((s) => `${s.scope}#${s.step}`)).toEqual([
      "search:T-1#1",
      "search:T-2#1",
      "search:T-1#2",
    ]);
  });
});
