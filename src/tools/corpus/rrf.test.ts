import { describe, expect, it } from "vitest";
import { reciprocalRankFusion } from "./rrf.ts";

describe("reciprocalRankFusion", () => {
  it("adds 1 / (60 + rank) per list", () => {
    expect(
      reciprocalRankFusion([
        [1, 2, 3],
        [3, 1, 4],
      ]),
    ).toEqual([
      { id: 1, score: 1 / 61 + 1 / 62 },
      { id: 3, score: 1 / 63 + 1 / 61 },
      { id: 2, score: 1 / 62 },
      { id: 4, score: 1 / 63 },
    ]);
  });

  it("breaks ties by best rank, then list order, then id", () => {
    expect(
      reciprocalRankFusion([
        [7, 5],
        [5, 7],
      ]).map((f) => f.id),
    ).toEqual([5, 7]);
    expect(reciprocalRankFusion([[9], [8]]).map((f) => f.id)).toEqual([9, 8]);
    expect(reciprocalRankFusion([[2, 1]], 0)).toEqual([
      { id: 2, score: 1 },
      { id: 1, score: 0.5 },
    ]);
  });

  it("fuses nothing into nothing", () => {
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});
