/**
 * DAPO's dynamic-sampling filter at its tolerance: a spread of exactly ε is uniform, exact
 * comparison by default, input order kept, an empty group refused with its reason.
 */

import { describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import { allEqual, dynamicSamplingFilter } from "./dapo-filter.ts";

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

describe("DAPO's filter at its tolerance", () => {
  it("drops a group whose spread is exactly ε and keeps one just above it", () => {
    expect(allEqual([0, 0.5], 0.5)).toBe(true);
    expect(allEqual([0, 0.5], 0.25)).toBe(false);
    const groups = [
      { id: "at", rewards: [0, 0.5, 0.25] },
      { id: "above", rewards: [0, 0.75] },
    ];
    const { kept, dropped } = dynamicSamplingFilter(groups, { epsilon: 0.5 });
    expect(kept.map((g) => g.id)).toEqual(["above"]);
    expect(dropped.map((g) => g.id)).toEqual(["at"]);
  });

  it("compares exactly by default: any difference keeps the group", () => {
    expect(allEqual([1, 1, 1])).toBe(true);
    expect(allEqual([1, 1 + Number.EPSILON])).toBe(false);
    expect(dynamicSamplingFilter([{ id: "g", rewards: [1, 1 + Number.EPSILON] }]).kept).toHaveLength(1);
  });

  it("keeps the input order and the caller's group objects", () => {
    const groups = [
      { id: "b", rewards: [0, 1], extra: 1 },
      { id: "a", rewards: [1, 1], extra: 2 },
      { id: "c", rewards: [1, 0], extra: 3 },
    ];
    const { kept, dropped } = dynamicSamplingFilter(groups);
    expect(kept).toEqual([groups[0], groups[2]]);
    expect(kept[0]).toBe(groups[0]);
    expect(dropped).toEqual([groups[1]]);
    expect(dynamicSamplingFilter([])).toEqual({ kept: [], dropped: [] });
  });

  it("refuses an empty group with the reason", () => {
    expect(refusal(() => allEqual([])).message).toBe("a group needs at least one reward");
    expect(refusal(() => dynamicSamplingFilter([{ id: "empty", rewards: [] }])).message).toBe(
      "a group needs at least one reward",
    );
  });
});
