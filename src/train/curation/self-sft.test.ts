import { describe, expect, it } from "vitest";
import { selfSftSelection } from "./self-sft.ts";

const outputs = [
  { input: "A", output: "a1", reward: 0.9 },
  { input: "A", output: "a2", reward: 0.2 },
  { input: "B", output: "b1", reward: 0.5 },
  { input: "A", output: "a3", reward: 0.5 },
  { input: "A", output: "a4", reward: 0.4 },
  { input: "B", output: "b2", reward: 0.5 },
  { input: "C", output: "c1", reward: 1 },
];

describe("Self-SFT selection", () => {
  it("takes each input's top-k by reward, above an optional floor", () => {
    expect(selfSftSelection(outputs).map((o) => o.output)).toEqual(["a1", "b1", "c1"]);
    expect(selfSftSelection(outputs, { k: 2 }).map((o) => o.output)).toEqual(["a1", "a3", "b1", "b2", "c1"]);
    expect(selfSftSelection(outputs, { k: 2, minReward: 0.6 }).map((o) => o.output)).toEqual(["a1", "c1"]);
    expect(() => selfSftSelection(outputs, { k: 0 })).toThrow(/k must/);
  });
});
