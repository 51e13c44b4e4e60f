import { describe, expect, it, vi } from "vitest";
import {
  citationPrecision,
  citedIds,
  mostlyCjk,
  paragraphBasic,
  planBasic,
  retrievalRecall,
  sameScript,
  type WarpJudges,
  warpActionReward,
} from "./warp-atomic.ts";

const Q = "How did solar output change in Italy?";
const section = (title: string) => ({ title, plan: `Describe ${title.toLowerCase()}` });
/** 290 letters + " [E1] [E2]": 300 characters = 100 estimated tokens, two citations. */
const PARAGRAPH = `${"a".repeat(290)} [E1] [E2]`;

describe("WARP basic properties (A.6.1)", () => {
  it("plans: 2–7 sections and the question's script, as the share of checks met", () => {
    expect(planBasic(Q, [section("Capacity"), section("Output"), section("Policy")])).toBe(1);
    expect(
      planBasic(
        Q,
        Array.from({ length: 8 }, (_, i) => section(`Part ${i}`)),
      ),
    ).toBe(0.5);
    expect(
      planBasic(Q, [
        { title: "装机容量", plan: "描述容量" },
        { title: "发电量", plan: "描述发电" },
      ]),
    ).toBe(0.5);
    expect(sameScript("意大利的太阳能", "装机容量")).toBe(true);
  });

  it("paragraphs: 100–2000 tokens, 0–12 citations, the question's script", () => {
    expect(citedIds("A [E1, E3]. B [E3][E12] and [1] and [Eleven].")).toEqual(["E1", "E3", "E12"]);
    expect(paragraphBasic(Q, PARAGRAPH)).toBe(1);
    expect(paragraphBasic(Q, "a".repeat(297))).toBeCloseTo(2 / 3, 12); // ⌈297/3⌉ = 99 tokens < 100
    const thirteen = `${"a".repeat(300)} ${Array.from({ length: 13 }, (_, i) => `[E${i + 1}]`).join(" ")}`;
    expect(paragraphBasic(Q, thirteen)).toBeCloseTo(2 / 3, 12);
  });
});

describe("WARP reference-based components", () => {
  it("citation precision: 0 on a hallucinated id, else F1 against the golden ids", () => {
    // cited {E1, E2}, golden {E2, E3}: P = 1/2, R = 1/2 → F1 = 0.5
    expect(citationPrecision(["E1", "E2"], ["E1", "E2", "E3"], ["E2", "E3"])).toBe(0.5);
    expect(citationPrecision(["E1", "E9"], ["E1", "E2"], ["E1"])).toBe(0);
    expect(citationPrecision([], [], [])).toBe(1);
    expect(citationPrecision([], ["E1"], ["E1"])).toBe(0);
  });

  it("recall of the golden documents", () => {
    expect(retrievalRecall(["a", "b", "c"], ["b", "d"])).toBe(0.5);
    expect(retrievalRecall(["a"], [])).toBeNull();
  });
});

describe("WARP action rewards", () => {
  const judges: WarpJudges = {
    planQuality: vi.fn(async () => ({ guidance: 5, hierarchy: 3, coherence: 1 })),
    planFaithfulness: vi.fn(async () => 1),
    paragraphQuality: vi.fn(async () => ({ relevance: 5, coverage: 4, depth: 3, novelty: 1 })),
    paragraphFaithfulness: vi.fn(async () => 0.8),
  };

  it("WRITE: mean of basic 1, quality (1 + 0.75 + 0.5 + 0)/4, faithfulness 0.8, citation precision 0.5", async () => {
    const r = await warpActionReward(
      {
        question: Q,
        action: "write",
        content: PARAGRAPH,
        given: ["E1", "E2", "E3"],
        passages: ["p1"],
        reference: { citations: ["E2", "E3"], text: "a model paragraph" },
      },
      judges,
    );
    expect(r.ability).toBe("writing");
    expect(r.components).toEqual({
      basic: 1,
      quality: 0.5625,
      faithfulness: 0.8,
      citationPrecision: 0.5,
      recall: null,
      accuracy: null,
    });
    // (1 + 0.5625 + 0.8 + 0.5) / 4 = 0.715625
    expect(r.reward).toBeCloseTo(0.715625, 12);
    expect(judges.paragraphQuality).toHaveBeenCalledWith({
      question: Q,
      content: PARAGRAPH,
      reference: "a model paragraph",
    });
    expect(judges.paragraphFaithfulness).toHaveBeenCalledWith({
      question: Q,
      content: PARAGRAPH,
      passages: ["p1"],
    });
  });

  it("EXPAND: planning and decision — basic 1, quality (1 + 0.5 + 0)/3, faithfulness 1, accuracy 0 (should have stopped)", async () => {
    const r = await warpActionReward(
      {
        question: Q,
        action: "expand",
        plan: [section("A"), section("B")],
        reference: { decision: "terminate" },
      },
      judges,
    );
    expect(r.components.quality).toBe(0.5);
    expect(r.components.accuracy).toBe(0);
    // (1 + 0.5 + 1 + 0) / 4 = 0.625
    expect(r.reward).toBe(0.625);
  });

  it("SEARCH scores recall; TERMINATE accuracy; an action with nothing computable has no reward", async () => {
    const search = await warpActionReward({
      question: Q,
      action: "search",
      retrieved: ["a", "b"],
      reference: { docs: ["b", "c"] },
    });
    expect([search.ability, search.reward]).toEqual(["retrieval", 0.5]);
    const stop = await warpActionReward({
      question: Q,
      action: "terminate",
      reference: { decision: "terminate" },
    });
    expect([stop.ability, stop.reward]).toEqual(["decision-making", 1]);
    expect((await warpActionReward({ question: Q, action: "terminate" })).reward).toBeNull();
  });
});

describe("WARP basic properties at their bounds", () => {
  it("reads the script from the letters only: a tie counts as CJK, digits and punctuation do not count", () => {
    expect(mostlyCjk("装机容量")).toBe(true);
    expect(mostlyCjk("装机ab")).toBe(true); // 2 of 4 letters
    expect(mostlyCjk("装ab")).toBe(false); // 1 of 3
    expect(mostlyCjk("装机 and more")).toBe(false); // 2 of 9 letters, however many spaces
    expect(mostlyCjk("2024 — 56%")).toBe(false); // no letters at all
    expect(sameScript(Q, "2024 — 56%")).toBe(true);
  });

  it("includes both ends of every bound", () => {
    expect(planBasic(Q, [section("A"), section("B")])).toBe(1);
    expect(
      planBasic(
        Q,
        Array.from({ length: 7 }, (_, i) => section(`Part ${i}`)),
      ),
    ).toBe(1);
    const twelve = Array.from({ length: 12 }, (_, i) => `[E${i + 1}]`).join("");
    // 6000 characters = 2000 estimated tokens, twelve citations
    const longest = `${"a".repeat(6000 - twelve.length)}${twelve}`;
    expect(citedIds(longest)).toHaveLength(12);
    expect(paragraphBasic(Q, longest)).toBe(1);
    expect(paragraphBasic(Q, `${longest}a`)).toBeCloseTo(2 / 3, 12);
  });

  it("cites only bracketed parts that are whole evidence ids", () => {
    expect(citedIds("[xE1] [E1x] [E2;E3] [E0] [E04]")).toEqual(["E2", "E3"]);
  });

  it("citation precision: citing anything when nothing is golden scores 0; F1 is the harmonic mean", () => {
    expect(citationPrecision(["E1"], ["E1"], [])).toBe(0);
    // P = 1, R = 1/2 → F1 = 2/3
    expect(citationPrecision(["E1"], ["E1", "E2"], ["E1", "E2"])).toBeCloseTo(2 / 3, 12);
  });
});
