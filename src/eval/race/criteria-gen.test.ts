import { describe, expect, it } from "vitest";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { LlmClient } from "../../llm/client.ts";
import { averageDimensionWeights, generateRaceCriteria } from "./criteria-gen.ts";

const w = (c: number, i: number, f: number, r: number) => ({
  comprehensiveness: c,
  insight: i,
  instruction_following: f,
  readability: r,
});

describe("averageDimensionWeights", () => {
  it("averages, renormalises, rounds to 2 decimals and puts the residual on readability", () => {
    // means 0.31667, 0.3, 0.21667, 0.16667 → rounded 0.32, 0.3, 0.22, 0.17 (sum 1.01) → readability 0.16
    expect(
      averageDimensionWeights([w(0.3, 0.35, 0.2, 0.15), w(0.4, 0.3, 0.2, 0.1), w(0.25, 0.25, 0.25, 0.25)]),
    ).toEqual(w(0.32, 0.3, 0.22, 0.16));
  });
  it("keeps only dimensions present in every sample and renormalises them", () => {
    // comprehensiveness 0.5, insight 0.25, readability 0.25 → sum 1 over the three kept
    expect(
      averageDimensionWeights([
        { comprehensiveness: 0.6, insight: 0.2, readability: 0.2 },
        { comprehensiveness: 0.4, insight: 0.3, readability: 0.3, extra: 1 },
      ]),
    ).toEqual({ comprehensiveness: 0.5, insight: 0.25, readability: 0.25 });
  });
});

const weightsStep = (task: string, value: unknown): ScriptStep => ({
  match: (p: string) =>
    p.includes(`<task>\n${task}\n</task>`) && p.includes("how much each dimension should weigh"),
  reply: { json: value },
});
const criteriaStep = (task: string, dimension: string, value: unknown): ScriptStep => ({
  match: (p: string) =>
    p.includes(`<task>\n${task}\n</task>`) && p.includes(`criteria for the ${dimension} dimension`),
  reply: { json: value },
});
const list = (name: string) => [
  { criterion: `${name} one`, explanation: "first", weight: 0.6 },
  { criterion: `${name} two`, explanation: "second", weight: 0.4 },
];

describe("generateRaceCriteria", () => {
  it("samples weights, writes criteria per dimension, re-asks invalid answers and counts failed tasks", async () => {
    const model = scriptedModel([
      weightsStep("Task 1", w(0.3, 0.3, 0.3, 0.3)),
      weightsStep("Task 1", w(0.3, 0.35, 0.2, 0.15)),
      weightsStep("Task 1", w(0.4, 0.3, 0.2, 0.1)),
      criteriaStep("Task 1", "Comprehensiveness", list("Breadth")),
      criteriaStep("Task 1", "Insight", list("Depth")),
      criteriaStep("Task 1", "Instruction Following", list("Scope")),
      criteriaStep("Task 1", "Readability", list("Clarity")),
      weightsStep("Task 2", { comprehensiveness: 1 }),
      weightsStep("Task 2", "no"),
    ]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
    const outcomes = await generateRaceCriteria({
      llm,
      queries: [
        { id: 1, prompt: "Task 1", language: "en" },
        { id: 2, prompt: "Task 2", language: "en" },
      ],
      samples: 2,
      maxRepairs: 1,
    });
    expect(outcomes[0]).toEqual({
      ok: true,
      query: { id: 1, prompt: "Task 1", language: "en" },
      calls: 7,
      formatErrors: 1,
      criteria: {
        id: 1,
        prompt: "Task 1",
        // (0.3 + 0.4) / 2 = 0.35, 0.325 → 0.32 (0.325 is stored below the tie), 0.2, 0.125 → 0.12 + 0.01
        dimension_weight: w(0.35, 0.32, 0.2, 0.13),
        criterions: {
          comprehensiveness: list("Breadth"),
          insight: list("Depth"),
          instruction_following: list("Scope"),
          readability: list("Clarity"),
        },
      },
    });
    expect(outcomes[1]).toMatchObject({ ok: false, query: { id: 2 } });
    expect((outcomes[1] as { error: string }).error).toMatch(/no valid answer after 2 calls/);
    // The weights re-ask named the broken sum.
    const repair = model.calls.find((c) => c.lastUser.startsWith("Your answer could not be used"))!;
    expect(repair.lastUser).toContain("the four weights must sum to exactly 1.0");
  });
});
