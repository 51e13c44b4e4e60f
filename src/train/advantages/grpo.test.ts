import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { groupStd, grpoAdvantages } from "./grpo.ts";

describe("GRPO advantages", () => {
  it("centres on the group mean and scales by the sample std + ε", () => {
    // [1, 0, 0, 1]: mean 0.5; sample variance (4 × 0.25) / 3 = 1/3 → std √(1/3) = 0.5773503
    // A = ±0.5 / (0.5773503 + 1e-6) = ±0.8660239
    const a = grpoAdvantages([1, 0, 0, 1]);
    expect(a[0]).toBeCloseTo(0.5 / (Math.sqrt(1 / 3) + 1e-6), 12);
    expect(a[0]).toBeCloseTo(0.8660239, 6);
    expect(a).toEqual([a[0], -a[0]!, -a[0]!, a[0]]);
    // [0.2, 0.5, 0.8]: mean 0.5; sample variance (0.09 + 0 + 0.09) / 2 = 0.09 → std 0.3 → A ≈ −1, 0, 1
    const b = grpoAdvantages([0.2, 0.5, 0.8], { epsilon: 0 });
    expect(b[0]).toBeCloseTo(-1, 12);
    expect(b[1]).toBeCloseTo(0, 12);
    expect(b[2]).toBeCloseTo(1, 12);
  });

  it("offers the population std, mean-centring only (MindDR Eq. 2), and gives equal rewards 0", () => {
    // population std of [1, 0, 0, 1] = 0.5 → A = ±0.5 / 0.500001
    expect(grpoAdvantages([1, 0, 0, 1], { std: "population" })[0]).toBeCloseTo(0.5 / 0.500001, 12);
    expect(groupStd([1, 0, 0, 1], "population")).toBe(0.5);
    expect(grpoAdvantages([1, 0, 0, 1], { scaleByStd: false })).toEqual([0.5, -0.5, -0.5, 0.5]);
    expect(grpoAdvantages([0.7, 0.7, 0.7])).toEqual([0, 0, 0]);
    expect(grpoAdvantages([0.3])).toEqual([0]);
  });

  it("refuses an empty group and a non-finite reward", () => {
    for (const bad of [[], [1, Number.NaN]]) {
      try {
        grpoAdvantages(bad);
        expect.unreachable();
      } catch (error) {
        expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
      }
    }
  });
});
