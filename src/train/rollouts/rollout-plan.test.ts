import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { fixtureRow } from "../test-fixtures.ts";
import { planRollouts, rolloutSeed, rolloutStrategyOptions } from "./rollout-plan.ts";

const rows = [fixtureRow({ id: "q1" }), fixtureRow({ id: "q2", prompt: "Another question?" })];

describe("the rollout plan", () => {
  it("plans G rollouts per question with distinct, reproducible seeds", () => {
    const plan = planRollouts(rows, 4, 0);
    expect(plan.map((p) => p.key)).toEqual(["q1#0", "q1#1", "q1#2", "q1#3", "q2#0", "q2#1", "q2#2", "q2#3"]);
    expect(new Set(plan.map((p) => p.seed)).size).toBe(8);
    expect(plan.every((p) => Number.isInteger(p.seed) && p.seed >= 0 && p.seed < 2 ** 31)).toBe(true);
    expect(planRollouts(rows, 4, 0)).toEqual(plan);
    expect(planRollouts(rows, 4, 1).map((p) => p.seed)).not.toEqual(plan.map((p) => p.seed));
    expect(plan[5]!.seed).toBe(rolloutSeed(0, "q2", 1));
  });

  it("refuses a group that is not a positive integer", () => {
    for (const group of [0, 1.5, -2]) {
      try {
        planRollouts(rows, group);
        expect.unreachable();
      } catch (error) {
        expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
      }
    }
  });

  it("runs smtl in its short-answer mode under the user's options; sampling comes from the definitions", () => {
    expect(rolloutStrategyOptions("smtl")).toEqual({ mode: "answer" });
    expect(rolloutStrategyOptions("warp", { forceExpand: 3 })).toEqual({ forceExpand: 3 });
    expect(rolloutStrategyOptions("smtl", { temperature: 0.6, mode: "research" })).toEqual({
      temperature: 0.6,
      mode: "research",
    });
    expect(rolloutStrategyOptions("graph")).toEqual({});
  });
});
