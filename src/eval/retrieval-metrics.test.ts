import { describe, expect, it } from "vitest";
import { dcg, evaluateRetrieval, mrrAtK, ndcgAtK, recallAtK } from "./retrieval-metrics.ts";

// One query: d2 is highly relevant (2), d4 and d9 relevant (1), d1 judged not relevant (0).
const judgments = new Map([
  ["d1", 0],
  ["d2", 2],
  ["d4", 1],
  ["d9", 1],
]);
const ranking = ["d1", "d2", "d3", "d4"];

describe("retrieval metrics (hand-computed)", () => {
  it("DCG uses linear gains and a log2(rank + 1) discount", () => {
    // 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.2618595 + 0.5
    expect(dcg([3, 2, 1], 10)).toBeCloseTo(4.7618595071, 9);
    expect(dcg([3, 2, 1], 1)).toBe(3);
  });

  it("nDCG@k with graded relevance", () => {
    // DCG@10 = 0/1 + 2/log2(3) + 0/2 + 1/log2(5) = 1.2618595 + 0.4306766 = 1.6925361
    // IDCG@10 = 2/1 + 1/log2(3) + 1/log2(4) = 2 + 0.6309298 + 0.5 = 3.1309298
    expect(ndcgAtK(ranking, judgments, 10)).toBeCloseTo(1.6925360652 / 3.1309297536, 9);
    expect(ndcgAtK(ranking, judgments, 10)).toBeCloseTo(0.540586, 6);
    // @2: 1.2618595 / (2 + 0.6309298) = 0.4796248
    expect(ndcgAtK(ranking, judgments, 2)).toBeCloseTo(0.4796248, 6);
    expect(ndcgAtK(["d2", "d4", "d9"], judgments, 10)).toBe(1);
  });

  it("Recall@k counts grades above 0 as relevant", () => {
    expect(recallAtK(ranking, judgments, 10)).toBe(2 / 3);
    expect(recallAtK(ranking, judgments, 3)).toBe(1 / 3);
    expect(recallAtK(ranking, judgments, 1)).toBe(0);
  });

  it("MRR@k is the reciprocal rank of the first relevant result", () => {
    expect(mrrAtK(ranking, judgments, 10)).toBe(0.5);
    expect(mrrAtK(ranking, judgments, 1)).toBe(0);
    expect(mrrAtK(["d9"], judgments, 10)).toBe(1);
  });

  it("counts a repeated id once, at its first position", () => {
    // [d2, d4]: DCG = 2 + 1/log2(3) = 2.6309298; IDCG = 3.1309298
    expect(ndcgAtK(["d2", "d2", "d4"], judgments, 10)).toBeCloseTo(2.6309297536 / 3.1309297536, 9);
    expect(mrrAtK(["d1", "d1", "d4"], judgments, 2)).toBe(0.5);
  });

  it("scores 0 when nothing is relevant", () => {
    const none = new Map([["d1", 0]]);
    expect(ndcgAtK(["d1"], none, 10)).toBe(0);
    expect(recallAtK(["d1"], none, 10)).toBe(0);
    expect(mrrAtK(["d1"], none, 10)).toBe(0);
  });
});

describe("evaluateRetrieval", () => {
  it("averages over the judged queries; a judged query without results scores 0", () => {
    const qrels = new Map([
      ["q1", judgments],
      ["q2", new Map([["x", 1]])],
    ]);
    const runs = new Map([
      ["q1", ranking],
      ["q3", ["x"]],
    ]);
    const scores = evaluateRetrieval(runs, qrels);
    expect(scores.queries).toBe(2);
    expect(scores.ndcgAt10).toBeCloseTo(0.540586 / 2, 6);
    expect(scores.recallAt100).toBe(1 / 3);
    expect(scores.mrrAt10).toBe(0.25);
    expect(scores.perQuery.get("q2")).toEqual({ ndcgAt10: 0, recallAt100: 0, mrrAt10: 0 });
  });

  it("gives zeros for no queries", () => {
    expect(evaluateRetrieval(new Map(), new Map())).toMatchObject({
      queries: 0,
      ndcgAt10: 0,
      recallAt100: 0,
      mrrAt10: 0,
    });
  });
});
