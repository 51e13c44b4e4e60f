/**
 * The rollout groups of the rl export: which runs share a baseline (group id, else question id),
 * each run's advantage whatever the order of the runs, the options passed on to the estimator, the
 * groups DAPO's filter leaves out (named), and the refusal of a run given twice.
 */

import { describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { rlRecords, runAdvantages, runGroupId, type ScoredRun } from "./rl.ts";
import { scoredGroup } from "./test-fixtures.ts";

function scoredRun(runId: string, question: string, reward: number, group?: RecordedRun["group"]): ScoredRun {
  return {
    run: fixtureRun({
      runId,
      row: fixtureRow({ id: question }),
      ...(group ? { group } : {}),
      answer: `answer of ${runId}`,
    }),
    reward: { reward, components: { score: reward } },
  };
}

describe("rl export's groups", () => {
  it("groups by the run's group id, else by its question's id", () => {
    expect(runGroupId(scoredRun("a", "q1", 0, { id: "batch-7", index: 2 }).run)).toBe("batch-7");
    expect(runGroupId(scoredRun("b", "q1", 0).run)).toBe("q1");
    // same question, one run in an explicit group: two groups of one (advantage 0 each)
    const split = [scoredRun("a", "q1", 1, { id: "g", index: 0 }), scoredRun("b", "q1", 0)];
    expect([...runAdvantages(split, { advantage: "rloo" }).advantages]).toEqual([
      ["a", 0],
      ["b", 0],
    ]);
  });

  it("gives each run its own group's advantage when the groups' runs are interleaved", () => {
    const runs = [
      scoredRun("a", "q1", 1),
      scoredRun("b", "q2", 0),
      scoredRun("c", "q1", 0),
      scoredRun("d", "q2", 1),
      scoredRun("e", "q2", 1),
    ];
    const { advantages, dropped } = runAdvantages(runs, { advantage: "rloo" });
    expect(Object.fromEntries(advantages)).toEqual({ a: 1, c: -1, b: -1, d: 0.5, e: 0.5 });
    expect(dropped).toEqual([]);
    // the lines come in the runs' order, each with its run's group and advantage
    const { records } = rlRecords(runs, { unit: "run", advantage: "rloo" });
    expect(records.map((r) => [r.run_id, r.group_id, r.group_index, r.advantage])).toEqual([
      ["a", "q1", null, 1],
      ["b", "q2", null, -1],
      ["c", "q1", null, -1],
      ["d", "q2", null, 0.5],
      ["e", "q2", null, 0.5],
    ]);
    expect(records[0]!.reward_components).toEqual({ score: 1 });
  });

  it("passes GRPO's options to the estimator; GRPO is the default", () => {
    const centred = runAdvantages(scoredGroup(), { grpo: { scaleByStd: false } }).advantages;
    expect(centred.get("run-0")).toBeCloseTo(1 / 3, 15);
    expect(centred.get("run-1")).toBeCloseTo(-2 / 3, 15);
    const population = runAdvantages(scoredGroup(), { advantage: "grpo", grpo: { std: "population" } });
    // rewards 1, 0, 1: population std √2 / 3
    expect(population.advantages.get("run-1")).toBeCloseTo(-2 / 3 / (Math.SQRT2 / 3 + 1e-6), 12);
    expect(runAdvantages(scoredGroup(), { advantage: "grpo" }).advantages).toEqual(
      runAdvantages(scoredGroup()).advantages,
    );
  });

  it("names the groups DAPO's filter leaves out, within the given tolerance, and only when asked", () => {
    const runs = [
      scoredRun("a", "q1", 1),
      scoredRun("b", "q1", 0.96),
      scoredRun("c", "q2", 1),
      scoredRun("d", "q2", 0),
    ];
    const kept = runAdvantages(runs);
    expect(kept.dropped).toEqual([]);
    expect([...kept.advantages.keys()]).toEqual(["a", "b", "c", "d"]);
    expect(runAdvantages(runs, { dropUniformGroups: true }).dropped).toEqual([]);
    const loose = runAdvantages(runs, { dropUniformGroups: true, epsilon: 0.05 });
    expect(loose.dropped).toEqual(["q1"]);
    expect([...loose.advantages.keys()]).toEqual(["c", "d"]);
    const { records, skipped } = rlRecords(runs, { unit: "run", dropUniformGroups: true, epsilon: 0.05 });
    expect(records.map((r) => r.run_id)).toEqual(["c", "d"]);
    expect(skipped).toEqual([
      { runId: "a", reason: "group q1: all rewards equal (no gradient)" },
      { runId: "b", reason: "group q1: all rewards equal (no gradient)" },
    ]);
  });

  it("refuses a run given twice, naming it", () => {
    const runs = [scoredRun("a", "q1", 1), scoredRun("b", "q1", 0), scoredRun("a", "q1", 0)];
    try {
      runAdvantages(runs);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DossierError);
      expect((error as DossierError).code).toBe("INPUT_INVALID");
      expect((error as DossierError).message).toBe("run a is given twice");
    }
  });
});
