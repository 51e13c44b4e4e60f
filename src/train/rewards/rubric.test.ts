import { describe, expect, it, vi } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { type RubricItemRater, rubricReward } from "./rubric.ts";
import { ACCEPTED, RATINGS, RUBRIC_ITEMS } from "./rubric-fixtures.ts";

const rater = (ratings: Record<string, (number | null)[]> = RATINGS) =>
  vi.fn<RubricItemRater>(async ({ item, report }) => ratings[report]![RUBRIC_ITEMS.indexOf(item)]!);
const run = fixtureRun({ strategy: "mams", row: fixtureRow({ rubric: RUBRIC_ITEMS }), report: ACCEPTED });

describe("rubric: a rollout scored by its query-specific rubric (Eq. 2)", () => {
  it("rates every item of the report and takes Σ w·v / Σ w", async () => {
    const rate = rater();
    const r = await rubricReward(run, { rate });
    expect(r.reward).toBeCloseTo(11 / 12, 12);
    expect(r.components).toEqual({ score: r.reward, rated: 7, failed: 0 });
    expect(rate).toHaveBeenCalledTimes(7);
    expect(rate).toHaveBeenCalledWith({ query: run.row.prompt, item: RUBRIC_ITEMS[0], report: ACCEPTED });
  });

  it("leaves a failed rating out of both sums: (11 − 5) / (12 − 5) = 6/7", async () => {
    const r = await rubricReward(run, { rate: rater({ [ACCEPTED]: [null, 10, 7, 4, 1, 1, 4] }) });
    expect(r.reward).toBeCloseTo(6 / 7, 12);
    expect(r.components.failed).toBe(1);
  });

  it("gives a run without a report the rubric's floor −(1 + 2)/12 without rating", async () => {
    const rate = rater();
    expect((await rubricReward({ ...run, report: null }, { rate })).reward).toBeCloseTo(-0.25, 12);
    expect(rate).not.toHaveBeenCalled();
  });

  it("refuses a row without a rubric and fails when nothing could be rated", async () => {
    await expect(rubricReward({ ...run, row: fixtureRow() }, { rate: rater() })).rejects.toSatisfy((e) =>
      isDossierError(e, "INPUT_INVALID"),
    );
    await expect(rubricReward(run, { rate: async () => null })).rejects.toSatisfy((e) =>
      isDossierError(e, "PROVIDER_ERROR"),
    );
  });
});

describe("rubric: what a trainer sees at the edges", () => {
  const errorsOnly = fixtureRow({
    rubric: [
      { title: "Answers", description: "Key Criterion: answers it.", weight: 1 },
      { title: "Wrong founder", description: "Error Criterion: incorrect founder.", weight: -2 },
    ],
  });

  it("treats a blank report like no report: the floor, every rating null, nothing rated", async () => {
    const rate = rater();
    for (const blank of [{ report: " \n\t " }, { report: null, answer: "  " }]) {
      const r = await rubricReward({ ...run, ...blank }, { rate });
      expect(r).toEqual({
        reward: -0.25,
        components: { score: -0.25, rated: 0, failed: 0 },
        ratings: [null, null, null, null, null, null, null],
      });
    }
    expect(rate).not.toHaveBeenCalled();
  });

  it("rates the short answer when the run wrote no report", async () => {
    const rate = rater({ short: [10, 10, 7, 4, 1, 1, 4] });
    const r = await rubricReward({ ...run, report: null, answer: "short" }, { rate });
    expect(r.reward).toBeCloseTo(11 / 12, 12);
    expect(r.ratings).toEqual([10, 10, 7, 4, 1, 1, 4]);
  });

  it("refuses a rubric whose weights sum to ≤ 0 as the row's fault, with or without a report", async () => {
    for (const report of [null, ACCEPTED]) {
      const rate = vi.fn<RubricItemRater>(async () => 5);
      await expect(rubricReward({ ...run, row: errorsOnly, report }, { rate })).rejects.toSatisfy(
        (e) =>
          isDossierError(e, "INPUT_INVALID") && /row q1: .*weights sum to ≤ 0/.test((e as Error).message),
      );
    }
  });

  it("names the row when it refuses or fails", async () => {
    await expect(rubricReward({ ...run, row: fixtureRow({ id: "q7" }) }, { rate: rater() })).rejects.toThrow(
      /row q7: .*rubric/,
    );
    await expect(rubricReward(run, { rate: async () => null })).rejects.toThrow(/row q1: no rubric item/);
  });
});
