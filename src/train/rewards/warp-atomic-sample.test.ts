import { describe, expect, it, vi } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { fixtureCall, fixtureRow, fixtureRun } from "../test-fixtures.ts";
import type { WarpJudges } from "./warp-atomic.ts";
import { isAtomicSample, warpAtomicSampleReward } from "./warp-atomic-sample.ts";

const Q = "How did solar output change in Italy?";
/** 290 letters + " [E1] [E2]": 100 estimated tokens, two citations — paragraph basic 1. */
const PARAGRAPH = `${"a".repeat(290)} [E1] [E2]`;
const SECTIONS = [
  { title: "Capacity", plan: "Describe capacity" },
  { title: "Output", plan: "Describe output" },
];
const none = {
  basic: null,
  quality: null,
  faithfulness: null,
  citationPrecision: null,
  recall: null,
  accuracy: null,
};

type Atomic = { action: string; reference: Record<string, unknown>; retrieved?: string[] };
/** An atomic-skill sample as `train rollouts --atomic` records it: one call, one action, the teacher in its state. */
function sample(
  action: string,
  answer: unknown,
  atomic: Atomic,
  fields: { passages?: string[]; formatErrors?: string[]; run?: Partial<RecordedRun> } = {},
): RecordedRun {
  return fixtureRun({
    runId: "teacher-1/4#0",
    strategy: "warp",
    row: fixtureRow({ prompt: Q }),
    calls: [fixtureCall({ callId: "L1", step: 4, formatErrors: fields.formatErrors ?? [] })],
    evidence: [
      { id: "E1", sourceId: "S1", text: "first passage", retrievedBy: { tool: "web_search", callId: "T1" } },
      { id: "E2", sourceId: "S1", text: "second passage", retrievedBy: { tool: "web_search", callId: "T1" } },
    ],
    trajectory: [
      {
        step: 4,
        action,
        state: {
          ...(fields.passages ? { passages: fields.passages } : {}),
          atomic: { teacherRunId: "teacher-1", teacherStep: 4, teacherCallId: "L7", ...atomic },
        },
        answer,
        toolCallIds: [],
        callIds: ["L1"],
      },
    ],
    stopReason: "atomic",
    ...fields.run,
  });
}
const teacher = { runId: "teacher-1", step: 4 };

describe("warp-atomic: recognising an atomic-skill sample", () => {
  const valid = sample("search", {}, { action: "search", reference: { docs: ["a"] }, retrieved: ["a"] });

  it("is one action whose state names its teacher, step and reference", () => {
    expect(isAtomicSample(valid)).toBe(true);
    expect(isAtomicSample({ trajectory: [] })).toBe(false);
    expect(isAtomicSample({ trajectory: [valid.trajectory[0]!, valid.trajectory[0]!] })).toBe(false);
    const withAtomic = (atomic: unknown) => ({
      trajectory: [{ ...valid.trajectory[0]!, state: { atomic } }],
    });
    const { teacherRunId: _r, ...noTeacher } = {
      teacherRunId: "t",
      teacherStep: 4,
      action: "search",
      reference: {},
    };
    expect(isAtomicSample(withAtomic(noTeacher))).toBe(false);
    expect(isAtomicSample(withAtomic({ teacherRunId: "t", teacherStep: 4, action: "search" }))).toBe(false);
    expect(
      isAtomicSample(
        withAtomic({ teacherRunId: "t", teacherStep: 4, action: "x", reference: { decision: "stop" } }),
      ),
    ).toBe(false);
    expect(isAtomicSample({ trajectory: [{ ...valid.trajectory[0]!, state: {} }] })).toBe(false);
  });

  it("refuses a whole rollout or a sample with other than one call, naming the run", async () => {
    const whole = { ...valid, trajectory: [...valid.trajectory, { ...valid.trajectory[0]!, step: 5 }] };
    const noCall = { ...valid, calls: [] };
    const twoCalls = { ...valid, calls: [...valid.calls, fixtureCall({ callId: "L2", step: 4 })] };
    const plain = { ...valid, trajectory: [{ ...valid.trajectory[0]!, state: {} }] };
    for (const run of [whole, noCall, twoCalls, plain, { ...valid, trajectory: [] }])
      await expect(warpAtomicSampleReward(run)).rejects.toSatisfy(
        (e) => isDossierError(e, "INPUT_INVALID") && (e as Error).message.includes("teacher-1/4#0"),
      );
  });
});

describe("warp-atomic: the reward of a sample", () => {
  it("scores a reply that is no valid action 0, below any valid one, without a judge", async () => {
    const j = { planQuality: vi.fn(async () => ({ guidance: 5, hierarchy: 5, coherence: 5 })) };
    const atomic = { action: "initialize", reference: {} };
    for (const invalid of [
      sample("initialize", { sections: SECTIONS }, atomic, { formatErrors: ["not JSON"] }),
      sample("initialize", null, atomic),
    ]) {
      expect(await warpAtomicSampleReward(invalid, j)).toEqual({
        reward: 0,
        components: { ...none, formatValid: 0 },
        action: "initialize",
        ability: null,
        teacher,
      });
    }
    expect(j.planQuality).not.toHaveBeenCalled();
  });

  it("INITIALIZE: its sections' basic properties and the plan judges, given the teacher's text", async () => {
    const planQuality = vi.fn<NonNullable<WarpJudges["planQuality"]>>(async () => ({
      guidance: 5,
      hierarchy: 3,
      coherence: 1,
    }));
    const run = sample(
      "initialize",
      { sections: SECTIONS },
      { action: "initialize", reference: { text: "ref" } },
    );
    const r = await warpAtomicSampleReward(run, { planQuality });
    expect(r).toEqual({
      reward: 0.75, // (basic 1 + quality 0.5) / 2
      components: { ...none, basic: 1, quality: 0.5, formatValid: 1 },
      action: "initialize",
      ability: "planning",
      teacher,
    });
    expect(planQuality).toHaveBeenCalledWith({ question: Q, plan: SECTIONS, reference: "ref" });
  });

  it("deepening: an EXPAND where the teacher stopped scores its subsections and a wrong decision", async () => {
    const run = sample(
      "expand",
      { subsections: SECTIONS },
      { action: "deepen", reference: { decision: "terminate" } },
    );
    const r = await warpAtomicSampleReward(run);
    expect([r.components, r.reward, r.ability]).toEqual([
      { ...none, basic: 1, accuracy: 0, formatValid: 1 },
      0.5,
      "planning",
    ]);
    const deeper = await warpAtomicSampleReward(
      sample("expand", { subsections: SECTIONS }, { action: "deepen", reference: { decision: "expand" } }),
    );
    expect([deeper.components.accuracy, deeper.reward]).toEqual([1, 1]);
    const stop = await warpAtomicSampleReward(
      sample("terminate", { name: "terminate" }, { action: "deepen", reference: { decision: "terminate" } }),
    );
    expect([stop.reward, stop.action, stop.ability]).toEqual([1, "terminate", "decision-making"]);
  });

  it("WRITE: the paragraph against the ids and passages its state gave and the teacher's citations", async () => {
    const paragraphFaithfulness = vi.fn(async () => 1);
    const run = sample(
      "write",
      { content: PARAGRAPH },
      { action: "write", reference: { citations: ["E2"] } },
      { passages: ["E1", "E2", "E9"] },
    );
    const r = await warpAtomicSampleReward(run, { paragraphFaithfulness });
    // basic 1, faithfulness 1, citation precision F1(P = 1/2, R = 1) = 2/3
    expect(r.components).toEqual({
      ...none,
      basic: 1,
      faithfulness: 1,
      citationPrecision: 2 / 3,
      formatValid: 1,
    });
    expect(r.reward).toBeCloseTo((1 + 1 + 2 / 3) / 3, 12);
    expect(paragraphFaithfulness).toHaveBeenCalledWith({
      question: Q,
      content: PARAGRAPH,
      passages: ["first passage", "second passage"],
    });
    const ungiven = sample(
      "write",
      { content: PARAGRAPH },
      { action: "write", reference: { citations: ["E2"] } },
    );
    expect((await warpAtomicSampleReward(ungiven)).components.citationPrecision).toBe(0);
  });

  it("SEARCH: recall of the teacher's documents by the ones its keywords found", async () => {
    const run = sample(
      "search",
      { keywords: ["solar"] },
      { action: "search", reference: { docs: ["a", "b"] }, retrieved: ["b", "c"] },
    );
    expect((await warpAtomicSampleReward(run)).components).toEqual({ ...none, recall: 0.5, formatValid: 1 });
    const found = sample("search", { keywords: ["x"] }, { action: "search", reference: { docs: ["a"] } });
    expect((await warpAtomicSampleReward(found)).reward).toBe(0);
  });

  it("a valid action with nothing computable scores 0 and says it was valid", async () => {
    const r = await warpAtomicSampleReward(sample("search", {}, { action: "search", reference: {} }));
    expect([r.reward, r.components]).toEqual([0, { ...none, formatValid: 1 }]);
  });
});
