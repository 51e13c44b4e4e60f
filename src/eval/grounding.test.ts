import { describe, expect, it } from "vitest";
import { contentWords } from "../core/text.ts";
import { groundingCheck, overlapShare } from "./grounding.ts";

describe("grounding check", () => {
  it("extracts content words without stopwords, in any script", () => {
    expect(contentWords("The battery of the car is 80% charged.")).toEqual([
      "battery",
      "car",
      "80",
      "charged",
    ]);
    expect(contentWords("固态电池的能量密度")).toContain("电池");
  });

  it("computes the share of sentence words found in the excerpt", () => {
    expect(overlapShare("Battery prices fell sharply", "In 2024 battery prices fell by 20%")).toBe(3 / 4);
    expect(overlapShare("the of and", "anything")).toBe(1);
  });

  it("marks cited sentences supported or not and reports the share", () => {
    const excerpts = new Map([
      [1, "Global lithium-ion battery pack prices fell 20% in 2024 to $115 per kWh."],
      [2, "Sodium-ion cells entered mass production in China."],
    ]);
    const body = [
      "# Title",
      "",
      "Battery pack prices fell 20% in 2024 [1]. Sodium-ion cells entered mass production [2].",
      "Quantum computers will replace all batteries [1, 2]. An uncited sentence.",
    ].join("\n");
    const result = groundingCheck(body, excerpts);
    expect(result.sentences.map((s) => [s.numbers, s.supported])).toEqual([
      [[1], true],
      [[2], true],
      [[1, 2], false],
    ]);
    expect(result.supported).toBe(2);
    expect(result.share).toBeCloseTo(2 / 3, 10);
  });

  it("returns a null share when nothing is cited", () => {
    expect(groundingCheck("No citations here.", new Map()).share).toBeNull();
  });
});

describe("citation after the full stop", () => {
  it("attributes a citation that follows the full stop to the sentence before it", () => {
    const excerpts = new Map([
      [1, "Battery prices fell in 2024."],
      [2, "Storage doubled."],
    ]);
    const result = groundingCheck("Battery prices fell in 2024. [1] Storage doubled. [2]", excerpts);
    expect(result.sentences.map((s) => [s.sentence, s.numbers, s.supported])).toEqual([
      ["Battery prices fell in 2024.", [1], true],
      ["Storage doubled.", [2], true],
    ]);
  });
});
