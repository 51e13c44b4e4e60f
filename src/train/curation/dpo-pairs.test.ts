import { describe, expect, it } from "vitest";
import { dpoPairs } from "./dpo-pairs.ts";

const outputs = [
  { input: "A", output: "a1", reward: 0.9 },
  { input: "A", output: "a2", reward: 0.2 },
  { input: "B", output: "b1", reward: 0.5 },
  { input: "A", output: "a3", reward: 0.5 },
  { input: "A", output: "a4", reward: 0.4 },
  { input: "B", output: "b2", reward: 0.5 },
  { input: "C", output: "c1", reward: 1 },
];

describe("DPO pairs from the same input's high and low outputs", () => {
  it("pairs the best with the worst when the gap is positive and ≥ the margin", () => {
    expect(dpoPairs(outputs)).toEqual([
      { input: "A", chosen: "a1", rejected: "a2", chosenReward: 0.9, rejectedReward: 0.2 },
    ]); // B: equal rewards, no pair; C: a single output
    // A ranked 0.9, 0.5, 0.4, 0.2: second pair (a3, a4) has gap 0.1
    expect(dpoPairs(outputs, { maxPairsPerInput: 2 }).map((p) => [p.chosen, p.rejected])).toEqual([
      ["a1", "a2"],
      ["a3", "a4"],
    ]);
    expect(
      dpoPairs(outputs, { maxPairsPerInput: 2, margin: 0.2 }).map((p) => [p.chosen, p.rejected]),
    ).toEqual([["a1", "a2"]]);
    expect(dpoPairs(outputs, { margin: 0.8 })).toEqual([]); // 0.7 < 0.8
  });

  it("never pairs an output with itself and refuses a negative margin", () => {
    const three = outputs.filter((o) => o.input === "A").slice(0, 3); // 0.9, 0.2, 0.5
    expect(dpoPairs(three, { maxPairsPerInput: 5 })).toHaveLength(1);
    expect(() => dpoPairs(outputs, { margin: -1 })).toThrow(/margin/);
  });
});
