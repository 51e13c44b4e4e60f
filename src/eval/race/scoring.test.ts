import { describe, expect, it } from "vitest";
import type { RaceCriteria } from "./records.ts";
import { calculateWeightedScores, normalizeScores, scoreJudgment } from "./scoring.ts";
import { matchCriterionWeight } from "./weights.ts";

const crit = (criterion: string, weight: number) => ({
  criterion,
  explanation: `about ${criterion}`,
  weight,
});

/** Hand-built criteria: dimension weights 0.4 / 0.3 / 0.2 / 0.1. */
const CRITERIA: RaceCriteria = {
  id: 7,
  prompt: "How did the 2024 drought affect rice prices?",
  dimension_weight: { comprehensiveness: 0.4, insight: 0.3, instruction_following: 0.2, readability: 0.1 },
  criterions: {
    comprehensiveness: [
      crit("Coverage of causes", 0.5),
      crit("Data Sources", 0.3),
      crit("Regional breakdown", 0.2),
    ],
    insight: [crit("Depth of analysis", 0.6), crit("Forward-looking view", 0.4)],
    instruction_following: [crit("Answers every sub-question", 1)],
    readability: [crit("Clear structure", 0.7), crit("Fluent language", 0.3)],
  },
};

const JUDGMENT = {
  comprehensiveness: [
    // exact → 0.5
    { criterion: "Coverage of causes", analysis: "…", article_1_score: 8, article_2_score: 6 },
    // case-insensitive → 0.3
    { criterion: "  data sources ", article_1_score: 6, article_2_score: 9 },
    // substring (the criteria text is inside the judge's) → 0.2
    { criterion: "Regional breakdown of the data", article_1_score: 5, article_2_score: 5 },
    // no match → mean weight (0.5 + 0.3 + 0.2) / 3
    { criterion: "Something unrelated", article_1_score: 10, article_2_score: 0 },
  ],
  insight: [
    // no article_2_score: its weight still joins the shared denominator
    { criterion: "Forward-looking view", article_1_score: 4 },
    // substring (the judge's text is inside the criteria text); score given as a string
    { criterion: "Depth", article_1_score: 7, article_2_score: "9" },
  ],
  instruction_following: [
    "not an object",
    { criterion: "Answers every sub-question", article_1_score: "n/a", article_2_score: 1 },
    { criterion: "", article_1_score: 1, article_2_score: 1 },
    { criterion: "Answers every sub-question", article_1_score: 6, article_2_score: 8 },
  ],
  readability: [
    { criterion: "Clear structure", article_1_score: 9, article_2_score: 7 },
    { criterion: "Fluent language", article_1_score: 8, article_2_score: 8 },
  ],
  // Not a dimension of the criteria: ignored.
  overall_comment: [{ criterion: "Clear structure", article_1_score: 0, article_2_score: 10 }],
};

describe("matchCriterionWeight", () => {
  const weights = new Map([
    ["Coverage of causes", 0.5],
    ["Data Sources", 0.3],
    ["Regional breakdown", 0.2],
  ]);
  it("tries exact, case-insensitive, substring either way, then the mean", () => {
    expect(matchCriterionWeight("Data Sources", weights)).toEqual({ weight: 0.3, match: "exact" });
    expect(matchCriterionWeight("DATA SOURCES", weights)).toEqual({ weight: 0.3, match: "case-insensitive" });
    expect(matchCriterionWeight("regional", weights)).toEqual({ weight: 0.2, match: "substring" });
    expect(matchCriterionWeight("Coverage of causes and effects", weights)).toEqual({
      weight: 0.5,
      match: "substring",
    });
    expect(matchCriterionWeight("Tone", weights)).toEqual({ weight: (0.5 + 0.3 + 0.2) / 3, match: "mean" });
  });
  it("takes the first criterion in file order on an ambiguous substring", () => {
    expect(matchCriterionWeight("s", weights)).toEqual({ weight: 0.5, match: "substring" });
  });
});

describe("calculateWeightedScores", () => {
  it("computes S per dimension with one shared denominator and T from the dimension weights", () => {
    const scores = calculateWeightedScores(JUDGMENT, CRITERIA);
    const mean = 1 / 3;
    // comprehensiveness: Σw = 0.5 + 0.3 + 0.2 + 1/3 = 4/3
    // target (8·0.5 + 6·0.3 + 5·0.2 + 10/3) / (4/3) = 7.6; reference (3 + 2.7 + 1 + 0) / (4/3) = 5.025
    expect(scores.target.dims.comprehensiveness).toBeCloseTo(7.6, 12);
    expect(scores.reference.dims.comprehensiveness).toBeCloseTo(5.025, 12);
    // insight: Σw = 0.4 + 0.6 = 1; target 4·0.4 + 7·0.6 = 5.8; reference 9·0.6 / 1 = 5.4 (not 9)
    expect(scores.target.dims.insight).toBeCloseTo(5.8, 12);
    expect(scores.reference.dims.insight).toBeCloseTo(5.4, 12);
    // instruction following: only the last item counts
    expect(scores.target.dims.instruction_following).toBe(6);
    expect(scores.reference.dims.instruction_following).toBe(8);
    expect(scores.target.dims.readability).toBeCloseTo(8.7, 12);
    expect(scores.reference.dims.readability).toBeCloseTo(7.3, 12);
    expect(Object.keys(scores.target.dims)).toEqual([
      "comprehensiveness",
      "insight",
      "instruction_following",
      "readability",
    ]);
    // T = 0.4·S_comp + 0.3·S_ins + 0.2·S_if + 0.1·S_read
    expect(scores.target.total).toBeCloseTo(3.04 + 1.74 + 1.2 + 0.87, 12);
    expect(scores.reference.total).toBeCloseTo(2.01 + 1.62 + 1.6 + 0.73, 12);
    expect(scores.criteria.map((c) => [c.criterion, c.match, c.weight])).toEqual([
      ["Coverage of causes", "exact", 0.5],
      ["data sources", "case-insensitive", 0.3],
      ["Regional breakdown of the data", "substring", 0.2],
      ["Something unrelated", "mean", mean],
      ["Forward-looking view", "exact", 0.4],
      ["Depth", "substring", 0.6],
      ["Answers every sub-question", "exact", 1],
      ["Clear structure", "exact", 0.7],
      ["Fluent language", "exact", 0.3],
    ]);
    expect(scores.unmatched).toEqual(["comprehensiveness:Something unrelated"]);
  });

  it("normalises to target / (target + reference) per dimension and overall", () => {
    const { scores } = scoreJudgment(JUDGMENT, CRITERIA);
    expect(scores.comprehensiveness).toBeCloseTo(7.6 / 12.625, 12);
    expect(scores.insight).toBeCloseTo(5.8 / 11.2, 12);
    expect(scores.instruction_following).toBeCloseTo(6 / 14, 12);
    expect(scores.readability).toBeCloseTo(8.7 / 16, 12);
    expect(scores.overall_score).toBeCloseTo(6.85 / 12.81, 12);
  });

  it("gives 0 to a 0/0 share and to a dimension rated with no usable item", () => {
    const { scores } = scoreJudgment(
      {
        comprehensiveness: [{ criterion: "Coverage of causes", article_1_score: 0, article_2_score: 0 }],
        insight: [{ criterion: "Depth of analysis", article_1_score: 6, article_2_score: 2 }],
        instruction_following: [],
        readability: [{ criterion: "Clarity" }],
      },
      CRITERIA,
    );
    expect(scores).toEqual({
      comprehensiveness: 0,
      insight: 0.75,
      instruction_following: 0,
      readability: 0,
      // T_tgt = 0.3·6 = 1.8, T_ref = 0.3·2 = 0.6
      overall_score: 1.8 / 2.4,
    });
  });

  it("refuses a judgment that leaves a dimension out, naming it (the task is dropped, not scored)", () => {
    expect(() =>
      scoreJudgment(
        {
          comprehensiveness: [{ criterion: "Coverage of causes", article_1_score: 5, article_2_score: 5 }],
          insight: [{ criterion: "Depth of analysis", article_1_score: 6, article_2_score: 2 }],
        },
        CRITERIA,
      ),
    ).toThrow(/lacks the dimension\(s\) instruction_following, readability/);
  });

  it("sets the reference average to 0 when the last parsed item has no article_2_score, as the benchmark does", () => {
    const scores = calculateWeightedScores(
      {
        insight: [
          { criterion: "Depth of analysis", article_1_score: 7, article_2_score: 9 },
          { criterion: "Forward-looking view", article_1_score: 4 },
        ],
      },
      CRITERIA,
    );
    expect(scores.target.dims.insight).toBeCloseTo(5.8, 12);
    expect(scores.reference.dims.insight).toBe(0);
  });

  it("uses target_score when article_1_score is absent", () => {
    const scores = calculateWeightedScores(
      {
        instruction_following: [
          { criterion: "Answers every sub-question", target_score: 3, article_2_score: 5 },
        ],
      },
      CRITERIA,
    );
    expect(normalizeScores(scores).instruction_following).toBe(3 / 8);
  });

  it("fails a task whose criteria have no criterions", () => {
    expect(() => calculateWeightedScores(JUDGMENT, { ...CRITERIA, criterions: {} })).toThrow(
      "criteria have no criterions",
    );
  });
});
