import { describe, expect, it } from "vitest";
import { normalizeRating, rubricScore } from "./rubric-score.ts";

describe("rubricScore", () => {
  it("divides by Σw by default, the paper's Eq. 2 (hand-computed)", () => {
    // Same ratings as below: Σ w·v = 14/3; Σw = 5 + 3 + 1 − 2 = 7; score = 14/21 = 2/3.
    const items = [{ weight: 5 }, { weight: 3 }, { weight: 1 }, { weight: -2 }];
    const result = rubricScore(items, [10, 4, 1, 7]);
    expect(result.denominator).toBe("sum");
    expect(result.score).toBeCloseTo(2 / 3, 12);
    expect(result.min).toBeCloseTo(-2 / 7, 12);
    expect(result.max).toBeCloseTo(9 / 7, 12);
    // Only error items rated: Σw < 0, no meaningful score.
    expect(rubricScore([{ weight: 5 }, { weight: -2 }], [null, 7]).score).toBeNull();
  });

  it("computes Σ w·v / Σ|w| with a negative-weight error item (hand-computed)", () => {
    // key 5 rated 10 → v = 1; important 3 rated 4 → v = 1/3; optional 1 rated 1 → v = 0;
    // error −2 rated 7 → v = 2/3. Σ w·v = 5 + 1 + 0 − 4/3 = 14/3; Σ|w| = 11; score = 14/33.
    const items = [{ weight: 5 }, { weight: 3 }, { weight: 1 }, { weight: -2 }];
    const result = rubricScore(items, [10, 4, 1, 7], { denominator: "abs-sum" });
    expect(result.score).toBeCloseTo(14 / 33, 12);
    expect(result.score).toBeCloseTo(0.424242, 6);
    expect(result.min).toBeCloseTo(-2 / 11, 12);
    expect(result.max).toBeCloseTo(9 / 11, 12);
    expect(result).toMatchObject({ rated: 4, failed: 0, complete: true });
  });

  it("reaches max when all positives are met and no error is committed, min in the opposite case", () => {
    const items = [{ weight: 5 }, { weight: -1 }];
    expect(rubricScore(items, [10, 1], { denominator: "abs-sum" }).score).toBeCloseTo(5 / 6, 12);
    expect(rubricScore(items, [1, 10], { denominator: "abs-sum" }).score).toBeCloseTo(-1 / 6, 12);
  });

  it("leaves a failed item out of both sums instead of scoring it as 1", () => {
    // Only key 5 (rating 7 → 2/3) and error −1 (rating 4 → 1/3) rated: (10/3 − 1/3) / 6 = 0.5.
    const items = [{ weight: 5 }, { weight: 4 }, { weight: -1 }];
    const result = rubricScore(items, [7, null, 4], { denominator: "abs-sum" });
    expect(result.score).toBeCloseTo(0.5, 12);
    expect(result).toMatchObject({ rated: 2, failed: 1, complete: false });
  });

  it("is null when nothing was rated and rejects out-of-range or missing ratings", () => {
    expect(rubricScore([{ weight: 5 }], [null])).toEqual({
      score: null,
      denominator: "sum",
      min: null,
      max: null,
      rated: 0,
      failed: 1,
      complete: false,
    });
    expect(() => rubricScore([{ weight: 5 }], [11])).toThrow(/outside 1\.\.10/);
    expect(() => rubricScore([{ weight: 5 }], [])).toThrow(/1 items but 0 ratings/);
  });

  it("normalises 1..10 linearly", () => {
    expect([1, 4, 10].map(normalizeRating)).toEqual([0, 1 / 3, 1]);
  });
});
