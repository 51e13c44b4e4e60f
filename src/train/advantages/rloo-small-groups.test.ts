/**
 * RLOO on pairs and singletons, its relation to the mean-centred advantage, and the reason given
 * for a group it cannot score.
 */

import { describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import { grpoAdvantages } from "./grpo.ts";
import { rlooAdvantages } from "./rloo.ts";

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

describe("RLOO on small groups", () => {
  it("gives a pair the difference of the two rewards, each against the other", () => {
    expect(rlooAdvantages([0, 1])).toEqual([-1, 1]);
    expect(rlooAdvantages([0.25, 1])).toEqual([-0.75, 0.75]);
  });

  it("is G/(G − 1) times the mean-centred advantage", () => {
    const rewards = [0.1, 0.4, 0.4, 0.9];
    const centred = grpoAdvantages(rewards, { scaleByStd: false });
    rlooAdvantages(rewards).forEach((a, i) => {
      expect(a).toBeCloseTo((4 / 3) * centred[i]!, 12);
    });
  });

  it("gives a group of one or of equal rewards exactly 0", () => {
    expect(rlooAdvantages([0.3])).toEqual([0]);
    expect(rlooAdvantages([1, 1])).toEqual([0, 0]);
  });

  it("says why a group cannot be scored", () => {
    expect(refusal(() => rlooAdvantages([])).message).toBe("a group needs at least one reward");
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(refusal(() => rlooAdvantages([1, bad])).message).toBe("rewards must be finite numbers");
  });
});
