import { describe, expect, it, vi } from "vitest";
import { WARP_ABILITY, type WarpActionSample, type WarpJudges, warpActionReward } from "./warp-atomic.ts";

const Q = "How did solar output change in Italy?";
const section = (title: string) => ({ title, plan: `Describe ${title.toLowerCase()}` });
/** 290 letters + " [E1] [E2]": 100 estimated tokens, two citations — paragraph basic 1. */
const PARAGRAPH = `${"a".repeat(290)} [E1] [E2]`;
/** Eight sections: one over the bound, so the plan's basic properties score 1/2. */
const EIGHT = Array.from({ length: 8 }, (_, i) => section(`Part ${i}`));
/** A reference that would give every component a value, were the action scored on it. */
const EVERYTHING = { docs: ["a", "b"], citations: ["E1"], decision: "expand", text: "model answer" } as const;

const judges = (): Required<WarpJudges> => ({
  planQuality: vi.fn(async () => ({ guidance: 5, hierarchy: 3, coherence: 1 })),
  planFaithfulness: vi.fn(async () => 0.25),
  paragraphQuality: vi.fn(async () => ({ relevance: 5, coverage: 5, depth: 5, novelty: 5 })),
  paragraphFaithfulness: vi.fn(async () => 0.75),
});
const none = {
  basic: null,
  quality: null,
  faithfulness: null,
  citationPrecision: null,
  recall: null,
  accuracy: null,
};

describe("WARP atomic rewards: each action is scored on its own ability's components only", () => {
  it("names the ability of every action", () => {
    expect(WARP_ABILITY).toEqual({
      initialize: "planning",
      expand: "planning",
      search: "retrieval",
      write: "writing",
      terminate: "decision-making",
    });
  });

  it("INITIALIZE: planning only — a paragraph, documents or a decision it carries are not scored", async () => {
    const j = judges();
    const sample: WarpActionSample = {
      question: Q,
      action: "initialize",
      plan: EIGHT,
      content: PARAGRAPH,
      given: ["E1", "E2"],
      retrieved: ["a"],
      reference: EVERYTHING,
    };
    const r = await warpActionReward(sample, j);
    expect(r.ability).toBe("planning");
    // basic 1/2 (eight sections), quality (1 + 0.5 + 0)/3, faithfulness 0.25
    expect(r.components).toEqual({ ...none, basic: 0.5, quality: 0.5, faithfulness: 0.25 });
    expect(r.reward).toBeCloseTo(5 / 12, 12);
    expect(j.planQuality).toHaveBeenCalledWith({ question: Q, plan: EIGHT, reference: "model answer" });
    expect(j.planFaithfulness).toHaveBeenCalledWith({ question: Q, plan: EIGHT });
    expect(j.paragraphQuality).not.toHaveBeenCalled();
    expect(j.paragraphFaithfulness).not.toHaveBeenCalled();
  });

  it("a planning action without a plan (an unreadable answer) has nothing computable and calls no judge", async () => {
    for (const action of ["initialize", "expand"] as const) {
      const j = judges();
      const r = await warpActionReward({ question: Q, action, reference: { text: "t" } }, j);
      expect([r.components, r.reward]).toEqual([none, null]);
      expect(j.planQuality).not.toHaveBeenCalled();
    }
  });

  it("uses only the judges it is given, and no reference text when the reference has none", async () => {
    const quality = judges().planQuality;
    const r = await warpActionReward(
      { question: Q, action: "initialize", plan: [section("A"), section("B")] },
      { planQuality: quality },
    );
    expect(r.components).toEqual({ ...none, basic: 1, quality: 0.5 });
    expect(quality).toHaveBeenCalledWith({ question: Q, plan: [section("A"), section("B")] });
    const faithful = judges().planFaithfulness;
    const f = await warpActionReward(
      { question: Q, action: "expand", plan: [section("A"), section("B")] },
      { planFaithfulness: faithful },
    );
    expect(f.components).toEqual({ ...none, basic: 1, faithfulness: 0.25 });
    expect((await warpActionReward({ question: Q, action: "initialize", plan: EIGHT })).reward).toBe(0.5);
  });

  it("WRITE: without judges or golden citations only its basic properties count", async () => {
    for (const reference of [null, { docs: ["a"], decision: "terminate" as const }]) {
      const r = await warpActionReward({ question: Q, action: "write", content: PARAGRAPH, reference });
      expect([r.components, r.reward]).toEqual([{ ...none, basic: 1 }, 1]);
    }
  });

  it("WRITE: each paragraph judge alone; faithfulness is judged against no passages when none were given", async () => {
    const j = judges();
    const q = await warpActionReward(
      { question: Q, action: "write", content: PARAGRAPH, plan: EIGHT },
      { paragraphQuality: j.paragraphQuality },
    );
    expect(q.components).toEqual({ ...none, basic: 1, quality: 1 });
    const f = await warpActionReward(
      { question: Q, action: "write", content: PARAGRAPH },
      { paragraphFaithfulness: j.paragraphFaithfulness },
    );
    expect(f.components).toEqual({ ...none, basic: 1, faithfulness: 0.75 });
    expect(j.paragraphFaithfulness).toHaveBeenCalledWith({ question: Q, content: PARAGRAPH, passages: [] });
    expect(j.planQuality).not.toHaveBeenCalled();
  });

  it("WRITE without a paragraph (an unreadable answer) has nothing computable and calls no judge", async () => {
    const j = judges();
    const r = await warpActionReward(
      { question: Q, action: "write", given: ["E1"], reference: EVERYTHING },
      j,
    );
    expect([r.components, r.reward]).toEqual([none, null]);
    expect(j.paragraphQuality).not.toHaveBeenCalled();
  });

  it("WRITE: a paragraph citing evidence it was not given has citation precision 0", async () => {
    const r = await warpActionReward({
      question: Q,
      action: "write",
      content: PARAGRAPH,
      reference: { citations: ["E1", "E2"] },
    });
    expect(r.components).toEqual({ ...none, basic: 1, citationPrecision: 0 });
    expect(r.reward).toBe(0.5);
  });

  it("SEARCH: recall only, and nothing without golden documents", async () => {
    const j = judges();
    const r = await warpActionReward(
      {
        question: Q,
        action: "search",
        retrieved: ["a"],
        plan: EIGHT,
        content: PARAGRAPH,
        reference: EVERYTHING,
      },
      j,
    );
    expect([r.ability, r.components, r.reward]).toEqual(["retrieval", { ...none, recall: 0.5 }, 0.5]);
    expect((await warpActionReward({ question: Q, action: "search", retrieved: ["a"] })).reward).toBeNull();
    const nothingFound = await warpActionReward({
      question: Q,
      action: "search",
      reference: { docs: ["a"] },
    });
    expect(nothingFound.reward).toBe(0);
  });

  it("TERMINATE: the decision only, whatever else its answer carries", async () => {
    const j = judges();
    const r = await warpActionReward(
      {
        question: Q,
        action: "terminate",
        plan: EIGHT,
        content: PARAGRAPH,
        retrieved: ["a"],
        reference: EVERYTHING,
      },
      j,
    );
    expect([r.components, r.reward]).toEqual([{ ...none, accuracy: 0 }, 0]);
    expect(j.planQuality).not.toHaveBeenCalled();
    expect(j.paragraphQuality).not.toHaveBeenCalled();
  });
});
