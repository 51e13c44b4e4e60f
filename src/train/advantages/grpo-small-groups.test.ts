/**
 * GRPO on the groups a trainer meets at the edges: one and two rollouts, the default standard
 * deviation, a given ε, and the reason given for a group it cannot score.
 */

import { describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import { groupMean, groupStd, grpoAdvantages } from "./grpo.ts";

/** The DossierError `run` throws (INPUT_INVALID), or fails. */
function refusal(run: () => unknown): DossierError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DossierError);
    expect((error as DossierError).code).toBe("INPUT_INVALID");
    return error as DossierError;
  }
  return expect.unreachable("no error thrown");
}

describe("the group's standard deviation", () => {
  it("is the sample one (divisor G − 1) unless asked for the population's", () => {
    expect(groupStd([1, 0, 0, 1])).toBeCloseTo(Math.sqrt(1 / 3), 15);
    expect(groupStd([1, 0, 0, 1], "sample")).toBe(groupStd([1, 0, 0, 1]));
    expect(groupStd([1, 0, 0, 1], "population")).toBe(0.5);
  });

  it("of two rewards is |r1 − r2| / √2 (sample) or / 2 (population)", () => {
    expect(groupStd([0, 1])).toBeCloseTo(Math.SQRT1_2, 15);
    expect(groupStd([0, 1], "population")).toBe(0.5);
  });

  it("of one reward is 0 with either divisor (never NaN)", () => {
    expect(groupStd([3])).toBe(0);
    expect(groupStd([3], "population")).toBe(0);
  });

  it("centres on the mean", () => {
    expect(groupMean([0.2, 0.5, 0.8])).toBeCloseTo(0.5, 15);
    expect(groupMean([4])).toBe(4);
  });
});

describe("GRPO on small groups", () => {
  it("gives a pair ∓0.5 / (√½ + ε): the better rollout positive, the worse negative, summing to 0", () => {
    const [worse, better] = grpoAdvantages([0, 1]);
    expect(better).toBeCloseTo(0.5 / (Math.SQRT1_2 + 1e-6), 12);
    expect(worse).toBe(-better!);
    expect(grpoAdvantages([0, 1], { std: "population" })[1]).toBeCloseTo(0.5 / 0.500001, 12);
  });

  it("adds the given ε to the standard deviation, and scales when told to explicitly", () => {
    expect(grpoAdvantages([1, 0, 0, 1], { std: "population", epsilon: 0.5 })[0]).toBeCloseTo(0.5, 15);
    expect(grpoAdvantages([1, 0, 0, 1], { scaleByStd: true })).toEqual(grpoAdvantages([1, 0, 0, 1]));
  });

  it("gives mean-centred advantages that sum to 0 when not scaled", () => {
    const a = grpoAdvantages([0.2, 0.5, 0.8], { scaleByStd: false });
    expect(a[0]).toBeCloseTo(-0.3, 15);
    expect(a[1]).toBeCloseTo(0, 15);
    expect(a[2]).toBeCloseTo(0.3, 15);
    expect(grpoAdvantages([0.7, 0.7], { scaleByStd: false })).toEqual([0, 0]);
  });

  it("says why a group cannot be scored", () => {
    expect(refusal(() => grpoAdvantages([])).message).toBe("a group needs at least one reward");
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(refusal(() => grpoAdvantages([0, bad])).message).toBe("rewards must be finite numbers");
  });
});
