import { describe, expect, it, vi } from "vitest";
import { fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { warpActionSamples, warpReward } from "./warp.ts";
import type { WarpReference } from "./warp-atomic.ts";
import type { PipelineJudge } from "./warp-pipeline.ts";

const Q = "How did solar output change in Italy?";
const PARAGRAPH = `${"a".repeat(290)} [E1] [E2]`;
const at = "2026-01-01T00:00:00Z";
const run = fixtureRun({
  strategy: "warp",
  row: fixtureRow({ prompt: Q }),
  report: "# Solar in Italy\n\nText.",
  sources: [
    { id: "S1", kind: "web", url: "https://a.example/1", title: "A", fetchedAt: at },
    { id: "S2", kind: "local", path: "notes/solar.md", anchor: "output", title: "N", fetchedAt: at },
  ],
  evidence: [
    { id: "E1", sourceId: "S1", text: "first passage", retrievedBy: { tool: "web_search", callId: "T1" } },
    { id: "E2", sourceId: "S2", text: "second passage", retrievedBy: { tool: "local_search", callId: "T2" } },
  ],
  trajectory: [
    {
      step: 1,
      action: "search",
      state: {},
      answer: { name: "search", keywords: ["solar"] },
      toolCallIds: ["T1"],
    },
    {
      step: 2,
      action: "initialize",
      state: {},
      answer: {
        title: "Solar",
        sections: [
          { title: "Capacity", plan: "p" },
          { title: "Output", plan: "p" },
          { title: "Policy", plan: "p" },
        ],
      },
      toolCallIds: [],
    },
    { step: 3, action: "search", state: {}, answer: { keywords: ["output"] }, toolCallIds: ["T2"] },
    {
      step: 4,
      action: "write",
      state: { passages: ["E1", "E2"] },
      answer: { content: PARAGRAPH },
      toolCallIds: [],
    },
    {
      step: 5,
      action: "expand",
      state: {},
      answer: {
        name: "expand",
        position: "section-2",
        subsections: [
          { title: "North", plan: "p" },
          { title: "South", plan: "p" },
        ],
      },
      toolCallIds: [],
    },
    { step: 6, action: "terminate", state: {}, answer: { name: "terminate" }, toolCallIds: [] },
    { step: 7, action: "think", state: {}, answer: {}, toolCallIds: [] },
  ],
});
const references: Record<number, WarpReference> = {
  1: { docs: ["https://a.example/1", "https://z.example/"] },
  5: { decision: "expand" },
  6: { decision: "terminate" },
};
const scores = { comprehensiveness: 0.5, insight: 0.6, instruction_following: 0.7, readability: 0.8 };

describe("warp over a recorded run", () => {
  it("reads each action's plan, paragraph, given evidence and retrieved documents from the trajectory", () => {
    const samples = warpActionSamples(run);
    expect(samples.map((s) => [s.step, s.action])).toEqual([
      [1, "search"],
      [2, "initialize"],
      [3, "search"],
      [4, "write"],
      [5, "expand"],
      [6, "terminate"],
    ]);
    expect(samples[0]!.retrieved).toEqual(["https://a.example/1"]);
    expect(samples[2]!.retrieved).toEqual(["notes/solar.md#output"]);
    expect(samples[3]).toMatchObject({
      content: PARAGRAPH,
      given: ["E1", "E2"],
      passages: ["first passage", "second passage"],
    });
    expect(samples[4]!.plan).toHaveLength(2);
  });

  it("scores the atomic rewards per action and the pipeline reward with the row's dimension weights", async () => {
    const pipeline = vi.fn<PipelineJudge>(async () => scores);
    const row = fixtureRow({
      prompt: Q,
      rubric: {
        prompt: Q,
        dimension_weight: {
          comprehensiveness: 0.4,
          insight: 0.3,
          instruction_following: 0.2,
          readability: 0.1,
        },
        criterions: {},
      },
    });
    const r = await warpReward({ ...run, row }, { pipeline, reference: (a) => references[a.step] ?? null });
    expect(pipeline).toHaveBeenCalledWith({ question: Q, report: run.report, row });
    // 0.4·0.5 + 0.3·0.6 + 0.2·0.7 + 0.1·0.8 = 0.2 + 0.18 + 0.14 + 0.08 = 0.6
    expect(r.reward).toBeCloseTo(0.6, 12);
    // search recall 1/2; initialize basic 1; search without reference: none; write basic 1;
    // expand (basic 1 + accuracy 1)/2 = 1; terminate accuracy 1
    expect(r.steps.map((s) => [s.step, s.reward])).toEqual([
      [1, 0.5],
      [2, 1],
      [3, null],
      [4, 1],
      [5, 1],
      [6, 1],
    ]);
    // (0.5 + 1 + 1 + 1 + 1) / 5 = 0.9
    expect(r.components.atomicMean).toBeCloseTo(0.9, 12);
  });

  it("weighs the dimensions equally for a row without RACE criteria, and scores 0 without a report or a judge call", async () => {
    const pipeline = vi.fn<PipelineJudge>(async () => scores);
    expect((await warpReward(run, { pipeline })).reward).toBeCloseTo(0.65, 12); // (0.5 + 0.6 + 0.7 + 0.8) / 4
    pipeline.mockClear();
    const none = await warpReward({ ...run, report: null }, { pipeline });
    expect([none.reward, none.dimensions]).toEqual([0, null]);
    expect(pipeline).not.toHaveBeenCalled();
  });
});

describe("warp: reading malformed and partial trajectories", () => {
  const step = (
    n: number,
    action: string,
    answer: unknown,
    state: unknown = {},
    toolCallIds: string[] = [],
  ) => ({
    step: n,
    action,
    state,
    answer,
    toolCallIds,
  });

  it("keeps the planned sections as written", () => {
    const [, init, , , expand] = warpActionSamples(run);
    expect(init!.plan).toEqual([
      { title: "Capacity", plan: "p" },
      { title: "Output", plan: "p" },
      { title: "Policy", plan: "p" },
    ]);
    expect(expand!.plan).toEqual([
      { title: "North", plan: "p" },
      { title: "South", plan: "p" },
    ]);
  });

  it("gives a malformed answer or state no plan, paragraph or evidence, and scores it as nothing computable", async () => {
    const malformed = {
      ...run,
      trajectory: [
        step(1, "initialize", { sections: [{ title: "Capacity" }] }),
        step(2, "expand", null),
        step(3, "write", { text: "no content field" }, { passages: "E1" }),
      ],
    };
    const samples = warpActionSamples(malformed);
    expect(samples).toEqual([
      { step: 1, question: Q, action: "initialize", reference: null },
      { step: 2, question: Q, action: "expand", reference: null },
      { step: 3, question: Q, action: "write", reference: null },
    ]);
    const pipeline = vi.fn<PipelineJudge>(async () => scores);
    const r = await warpReward(malformed, { pipeline });
    expect(r.steps.map((s) => s.reward)).toEqual([null, null, null]);
    expect(r.components.atomicMean).toBeNull();
  });

  it("keeps the ids a WRITE was given but only the passages the run recorded", () => {
    const partial = {
      ...run,
      trajectory: [step(1, "write", { content: PARAGRAPH }, { passages: ["E2", "E9"] })],
    };
    expect(warpActionSamples(partial)[0]).toMatchObject({
      given: ["E2", "E9"],
      passages: ["second passage"],
    });
  });

  it("retrieves documents for SEARCH only, skipping evidence whose source the run lost", () => {
    const lost = {
      ...run,
      evidence: [
        ...run.evidence,
        { id: "E3", sourceId: "S9", text: "orphan", retrievedBy: { tool: "web_search", callId: "T1" } },
        { id: "E4", sourceId: "S1", text: "again", retrievedBy: { tool: "web_search", callId: "T1" } },
      ],
      trajectory: [step(1, "search", {}, {}, ["T1"]), step(2, "terminate", {}, {}, ["T1"])],
    };
    const [search, stop] = warpActionSamples(lost);
    expect(search!.retrieved).toEqual(["https://a.example/1"]);
    expect(stop).toEqual({ step: 2, question: Q, action: "terminate", reference: null });
  });

  it("has no atomic mean for a run without actions, while the pipeline reward stands", async () => {
    const r = await warpReward({ ...run, trajectory: [] }, { pipeline: async () => scores });
    expect(r.steps).toEqual([]);
    expect(r.components).toEqual({ pipeline: r.reward, atomicMean: null });
    expect(r.reward).toBeCloseTo(0.65, 12);
  });
});
