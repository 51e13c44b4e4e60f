import { describe, expect, it } from "vitest";
import { grpoAdvantages } from "./grpo.ts";
import { rlooAdvantages } from "./rloo.ts";

describe("RLOO advantages", () => {
  it("subtracts the mean of the other rollouts", () => {
    // [1, 0, 0, 1]: 1 − (0 + 0 + 1)/3 = 2/3; 0 − (1 + 0 + 1)/3 = −2/3
    const a = rlooAdvantages([1, 0, 0, 1]);
    expect(a.map((x) => x * 3)).toEqual([2, -2, -2, 2].map((x) => expect.closeTo(x, 12)));
    // [0.2, 0.5, 0.8]: 0.2 − 0.65 = −0.45; 0.5 − 0.5 = 0; 0.8 − 0.35 = 0.45  (= 3/2 · (r − 0.5))
    const b = rlooAdvantages([0.2, 0.5, 0.8]);
    expect(b[0]).toBeCloseTo(-0.45, 12);
    expect(b[1]).toBeCloseTo(0, 12);
    expect(b[2]).toBeCloseTo(0.45, 12);
    expect(rlooAdvantages([5])).toEqual([0]);
  });
});

describe("equal rewards", () => {
  it("give exactly 0 with both estimators, whatever the rounding of their mean", () => {
    expect(grpoAdvantages([0.7, 0.7, 0.7])).toEqual([0, 0, 0]);
    expect(rlooAdvantages([0.7, 0.7, 0.7])).toEqual([0, 0, 0]);
  });
});
