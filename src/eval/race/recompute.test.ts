import { describe, expect, it } from "vitest";
import { parseJsonl, toJsonl } from "./jsonl.ts";
import { recomputeFromJudgments, sortRowsById } from "./recompute.ts";
import { raceJudgmentLineSchema } from "./records.ts";
import { raceCriteria as criteria, raceJudgment as judgment } from "./test-fixtures.ts";

describe("recomputeFromJudgments", () => {
  it("scores each line joined on the exact prompt and drops failed tasks from the means", () => {
    const lines = parseJsonl(
      toJsonl([
        { id: 2, prompt: "Task B", judgment: judgment([9, 1], [2, 8], [5, 5], [7, 3]) },
        { id: 1, prompt: "Task A", judgment: judgment([6, 4], [5, 5], [8, 2], [3, 7]) },
        { id: 3, prompt: "Task C", judgment: null, error: "judge failed: no valid answer after 3 calls" },
        { id: 4, prompt: "Task A ", judgment: judgment([6, 4], [5, 5], [8, 2], [3, 7]) },
      ]),
      raceJudgmentLineSchema,
    );
    const result = recomputeFromJudgments([criteria(1, "Task A"), criteria(2, "Task B")], lines);
    // Task A: 0.6, 0.5, 0.8, 0.3; T = 0.25·22 vs 0.25·18 → 0.55
    // Task B: 0.9, 0.2, 0.5, 0.7; T = 0.25·23 vs 0.25·17 → 0.575
    expect(result.rows).toEqual([
      {
        id: 1,
        prompt: "Task A",
        comprehensiveness: 0.6,
        insight: 0.5,
        instruction_following: 0.8,
        readability: 0.3,
        overall_score: 0.55,
      },
      {
        id: 2,
        prompt: "Task B",
        comprehensiveness: 0.9,
        insight: 0.2,
        instruction_following: 0.5,
        readability: 0.7,
        overall_score: 0.575,
      },
      { id: 3, prompt: "Task C", error: "judge failed: no valid answer after 3 calls" },
      { id: 4, prompt: "Task A ", error: "evaluation criteria not found for this prompt" },
    ]);
    expect(result.summary.tasks).toBe(2);
    expect(result.summary.failed).toBe(2);
    expect(result.summary.overall).toBeCloseTo(0.5625, 12);
    expect(result.summary.comprehensiveness).toBeCloseTo(0.75, 12);
    expect(result.summary.insight).toBeCloseTo(0.35, 12);
    expect(result.summary.instruction_following).toBeCloseTo(0.65, 12);
    expect(result.summary.readability).toBeCloseTo(0.5, 12);
    expect(result.details.map((d) => d.id)).toEqual([2, 1]);
  });

  it("turns a scoring error into a failed row", () => {
    const broken = { ...criteria(1, "Task A"), criterions: {} };
    const judgment = { comprehensiveness: [], insight: [], instruction_following: [], readability: [] };
    const result = recomputeFromJudgments([broken], [{ id: 1, prompt: "Task A", judgment }]);
    expect(result.rows[0]!.error).toMatch(/^error calculating scores: .*no criterions/);
    expect(result.summary).toMatchObject({ tasks: 0, failed: 1, overall: null });
  });
});

describe("a judgment missing a dimension", () => {
  it("drops its task, counted as failed, and the means are over the tasks that scored (hand-computed)", () => {
    const { readability: _dropped, ...partial } = judgment([9, 1], [9, 1], [9, 1], [9, 1]);
    const result = recomputeFromJudgments(
      [criteria(1, "Task A"), criteria(2, "Task B")],
      [
        { id: 1, prompt: "Task A", judgment: judgment([6, 4], [6, 4], [6, 4], [6, 4]) },
        { id: 2, prompt: "Task B", judgment: partial },
      ],
    );
    expect(result.rows[1]!.error).toMatch(/lacks the dimension\(s\) readability/);
    // Task A alone: every criterion 6 vs 4, so every share is 6 / (6 + 4) = 0.6.
    expect(result.summary).toMatchObject({ tasks: 1, failed: 1 });
    expect(result.summary.overall).toBeCloseTo(0.6, 12);
  });
});

describe("sortRowsById", () => {
  it("orders numeric ids numerically, then string ids, then rows without id", () => {
    expect(sortRowsById([{ id: "b" }, {}, { id: 10 }, { id: 2 }, { id: "a" }])).toEqual([
      { id: 2 },
      { id: 10 },
      { id: "a" },
      { id: "b" },
      {},
    ]);
  });
});
