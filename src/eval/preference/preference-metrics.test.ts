import { describe, expect, it } from "vitest";
import { pairedCohensD, preferenceMetrics } from "./preference-metrics.ts";

describe("preferenceMetrics", () => {
  it("computes accuracy, AUC and paired Cohen's d (hand-computed)", () => {
    // Δ = 0.3, 0.1, 0, −0.2, 0.3 → wins 3, ties 1, losses 1.
    // mean = 0.5 / 5 = 0.1; Σ(Δ − mean)² = 0.04 + 0 + 0.01 + 0.09 + 0.04 = 0.18;
    // sample variance = 0.18 / 4 = 0.045; sd = √0.045 = 0.212132…; d = 0.1 / 0.212132 = 0.471405…
    const metrics = preferenceMetrics([
      { id: "q1", preferred: 0.8, rejected: 0.5 },
      { id: "q2", preferred: 0.6, rejected: 0.5 },
      { id: "q3", preferred: 0.4, rejected: 0.4 },
      { id: "q4", preferred: 0.3, rejected: 0.5 },
      { id: "q5", preferred: 0.9, rejected: 0.6 },
      { id: "q6", preferred: null, rejected: 0.2 },
    ]);
    expect(metrics).toMatchObject({ n: 5, skipped: 1, wins: 3, ties: 1, losses: 1 });
    expect(metrics.accuracy).toBeCloseTo(0.6, 12);
    expect(metrics.auc).toBeCloseTo(0.7, 12);
    expect(metrics.effect.mean).toBeCloseTo(0.1, 12);
    expect(metrics.effect.sd).toBeCloseTo(Math.sqrt(0.045), 12);
    expect(metrics.effect.d).toBeCloseTo(0.471405, 6);
  });

  it("has null rates with no scored pair", () => {
    expect(preferenceMetrics([{ id: "x", preferred: null, rejected: null }])).toEqual({
      n: 0,
      skipped: 1,
      wins: 0,
      ties: 0,
      losses: 0,
      accuracy: null,
      auc: null,
      effect: { n: 0, mean: null, sd: null, d: null },
    });
  });
});

describe("pairedCohensD", () => {
  it("uses the sample standard deviation: Δ = 1, 3 → mean 2, sd √2, d √2", () => {
    const effect = pairedCohensD([1, 3]);
    expect(effect.mean).toBe(2);
    expect(effect.sd).toBeCloseTo(Math.SQRT2, 12);
    expect(effect.d).toBeCloseTo(Math.SQRT2, 12);
  });

  it("is undefined for one difference or zero spread", () => {
    expect(pairedCohensD([0.5])).toEqual({ n: 1, mean: 0.5, sd: null, d: null });
    expect(pairedCohensD([0.2, 0.2]).d).toBeNull();
  });
});
