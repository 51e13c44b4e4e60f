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
