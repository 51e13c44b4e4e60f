import { describe, expect, it } from "vitest";
import { type DifficultyVerdict, nextDifficultyMix } from "./difficulty-scheduler.ts";

const verdicts = (bin: string, correct: number, of: number): DifficultyVerdict[] =>
  Array.from({ length: of }, (_, i) => ({ bin, correct: i < correct }));

describe("MindDR's difficulty scheduler", () => {
  it("shrinks the bins outside 10–50% ORM accuracy and renormalises", () => {
    // easy 8/10 = 0.8 (too easy), medium 3/10 = 0.3 (in zone), hard 0/10 = 0 (too hard)
    const mix = nextDifficultyMix({ easy: 0.4, medium: 0.35, hard: 0.25 }, [
      ...verdicts("easy", 8, 10),
      ...verdicts("medium", 3, 10),
      ...verdicts("hard", 0, 10),
    ]);
    expect(mix.accuracy).toEqual({ easy: 0.8, medium: 0.3, hard: 0 });
    expect(mix.inZone).toEqual({ easy: false, medium: true, hard: false });
    // 0.4·0.5 = 0.2, 0.35, 0.25·0.5 = 0.125; Σ = 0.675 → 0.2963, 0.5185, 0.1852
    expect(mix.proportions.easy).toBeCloseTo(0.2 / 0.675, 12);
    expect(mix.proportions.medium).toBeCloseTo(0.35 / 0.675, 12);
    expect(mix.proportions.hard).toBeCloseTo(0.125 / 0.675, 12);
    // Σ p·acc = (0.2·0.8 + 0.35·0.3 + 0.125·0) / 0.675 = 0.265 / 0.675 = 0.3926
    expect(mix.expectedAccuracy).toBeCloseTo(0.265 / 0.675, 12);
  });

  it("treats 10% and 50% as inside the zone", () => {
    const mix = nextDifficultyMix({ a: 0.5, b: 0.5 }, [...verdicts("a", 1, 10), ...verdicts("b", 5, 10)]);
    expect(mix.inZone).toEqual({ a: true, b: true });
    expect(mix.proportions).toEqual({ a: 0.5, b: 0.5 });
  });

  it("keeps every bin at the floor at least", () => {
    // a in zone keeps 0.94, b too easy: 0.06·0.5 = 0.03 → 0.03/0.97 = 0.0309 < 0.05 → b = 0.05, a = 0.95
    const mix = nextDifficultyMix({ a: 0.94, b: 0.06 }, [...verdicts("a", 3, 10), ...verdicts("b", 9, 10)]);
    expect(mix.proportions.b).toBeCloseTo(0.05, 12);
    expect(mix.proportions.a).toBeCloseTo(0.95, 12);
  });

  it("leaves bins without a verdict alone, and the mix alone when every bin is outside the zone", () => {
    const unmeasured = nextDifficultyMix({ a: 0.5, b: 0.5 }, verdicts("a", 9, 10));
    // a: 0.25, b: 0.5 → 1/3, 2/3
    expect(unmeasured.proportions.a).toBeCloseTo(1 / 3, 12);
    expect(unmeasured.inZone.b).toBeNull();
    expect(unmeasured.expectedAccuracy).toBeCloseTo(0.9, 12);
    const allOut = nextDifficultyMix({ a: 0.6, b: 0.4 }, [...verdicts("a", 10, 10), ...verdicts("b", 0, 10)]);
    expect(allOut.proportions).toEqual({ a: 0.6, b: 0.4 });
  });

  it("refuses an empty or all-zero mix and a floor the bins cannot all get", () => {
    expect(() => nextDifficultyMix({}, [])).toThrow(/no difficulty bin/);
    expect(() => nextDifficultyMix({ a: 0 }, [])).toThrow(/not all 0/);
    expect(() => nextDifficultyMix({ a: 1, b: 1, c: 1 }, [], { floor: 0.4 })).toThrow(/floor/);
  });
});
