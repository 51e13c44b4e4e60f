import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { fixtureRow } from "../test-fixtures.ts";
import { pipelineScore, pipelineWeights } from "./warp-pipeline.ts";

const scores = { comprehensiveness: 0.5, insight: 0.6, instruction_following: 0.7, readability: 0.8 };
const race = (dimension_weight: Record<string, number>) =>
  fixtureRow({ rubric: { prompt: "q", dimension_weight, criterions: {} } });

describe("WARP's pipeline reward (A.6.2)", () => {
  it("weighs the four dimensions by the row's RACE weights", () => {
    const weights = pipelineWeights(
      race({ comprehensiveness: 0.4, insight: 0.3, instruction_following: 0.2, readability: 0.1 }),
    );
    // 0.4·0.5 + 0.3·0.6 + 0.2·0.7 + 0.1·0.8 = 0.6 (Σ W = 1)
    expect(pipelineScore(scores, weights)).toBeCloseTo(0.6, 12);
    // a missing dimension weighs 0: (0.5·0.5 + 0.5·0.6) / 1 = 0.55
    expect(
      pipelineScore(scores, pipelineWeights(race({ comprehensiveness: 0.5, insight: 0.5 }))),
    ).toBeCloseTo(0.55, 12);
  });

  it("weighs them equally without RACE weights and refuses a missing score", () => {
    expect(pipelineWeights(fixtureRow())).toEqual({
      comprehensiveness: 0.25,
      insight: 0.25,
      instruction_following: 0.25,
      readability: 0.25,
    });
    expect(pipelineWeights(race({ other: 1 }))).toEqual(pipelineWeights(fixtureRow()));
    const { readability: _, ...three } = scores;
    expect(() => pipelineScore(three as typeof scores, pipelineWeights(fixtureRow()))).toThrow(/readability/);
  });
});

describe("WARP's pipeline reward: the combination a trainer sees", () => {
  it("divides by the sum of the weights when they do not sum to 1", () => {
    const weights = pipelineWeights(race({ comprehensiveness: 2, insight: 1, instruction_following: 1 }));
    expect(weights).toEqual({ comprehensiveness: 2, insight: 1, instruction_following: 1, readability: 0 });
    // (2·0.5 + 0.6 + 0.7) / 4 = 0.575
    expect(pipelineScore(scores, weights)).toBeCloseTo(0.575, 12);
  });

  it("refuses a score that is not a finite number as the judge's fault", () => {
    const equal = pipelineWeights(fixtureRow());
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, "0.8"]) {
      try {
        pipelineScore({ ...scores, insight: bad as number }, equal);
        expect.unreachable();
      } catch (error) {
        expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
        expect((error as Error).message).toMatch(/insight/);
      }
    }
  });
});
