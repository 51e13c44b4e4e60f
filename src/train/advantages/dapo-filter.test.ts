import { describe, expect, it } from "vitest";
import { dynamicSamplingFilter } from "./dapo-filter.ts";

describe("DAPO's dynamic-sampling filter", () => {
  const groups = [
    { id: "all-correct", rewards: [1, 1, 1] },
    { id: "mixed", rewards: [1, 0, 1] },
    { id: "all-wrong", rewards: [0, 0, 0] },
    { id: "single", rewards: [0.5] },
    { id: "nearly", rewards: [0.3, 0.1 + 0.2] },
    { id: "graded", rewards: [0.2, 0.25] },
  ];

  it("drops exactly the groups whose rewards are all equal", () => {
    const { kept, dropped } = dynamicSamplingFilter(groups);
    expect(kept.map((g) => g.id)).toEqual(["mixed", "nearly", "graded"]);
    expect(dropped.map((g) => g.id)).toEqual(["all-correct", "all-wrong", "single"]);
  });

  it("compares within an epsilon when given one", () => {
    const { kept } = dynamicSamplingFilter(groups, { epsilon: 1e-9 });
    expect(kept.map((g) => g.id)).toEqual(["mixed", "graded"]);
  });
});
