import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import type { RecordedRun } from "../recorded-run.ts";
import type { AnswerJudge } from "../rewards/answer-judge.ts";
import { fixtureCall, fixtureRow, fixtureRun } from "../test-fixtures.ts";
import { checkRunsForReward, scoreRuns } from "./score-runs.ts";

/** Run `id` of question `q`, index `i`, answering `answer`. */
function run(id: string, q: string, i: number, answer: string): RecordedRun {
  return fixtureRun({
    runId: id,
    row: fixtureRow({ id: q, answer: "Paris" }),
    group: { id: q, index: i },
    answer,
    calls: [fixtureCall({ runId: id, callId: "L1", step: 1 })],
  });
}

/** Correct when the response names the reference; counts its calls. */
function countingJudge() {
  const asked: string[] = [];
  const judge: AnswerJudge = async ({ reference, response }) => {
    asked.push(response);
    return { correct: response.includes(reference), rationale: "scripted" };
  };
  return { judge, asked };
}

const runs = [
  run("a0", "q1", 0, "Paris"),
  run("a1", "q1", 1, "Lyon"),
  run("a2", "q1", 2, "Nice"),
  run("b0", "q2", 0, "Paris"),
  run("b1", "q2", 1, "Paris, France"),
];

describe("scoring rollouts", () => {
  it("gives each run its reward, components and RLOO advantage; DAPO drops the all-equal group", async () => {
    const { judge, asked } = countingJudge();
    const records = await scoreRuns(runs, {
      reward: "smtl",
      judges: { answer: judge },
      advantage: "rloo",
      dropUniformGroups: true,
    });
    expect(asked).toHaveLength(5);
    expect(records.map((r) => [r.runId, r.reward, r.advantage, r.dropped])).toEqual([
      // q1 rewards (1, 0, 0): A_i = r_i − mean of the others.
      ["a0", 1, 1, false],
      ["a1", 0, -0.5, false],
      ["a2", 0, -0.5, false],
      ["b0", 1, null, true],
      ["b1", 1, null, true],
    ]);
    expect(records[1]).toMatchObject({
      questionId: "q1",
      groupId: "q1",
      groupIndex: 1,
      rewardName: "smtl",
      components: { correct: 0, formatValid: 1 },
      details: { verdict: { correct: false, rationale: "scripted" }, formatBreaks: [] },
    });
  });

  it("keeps the rewards of runs scored before without asking the judge again (GRPO by default)", async () => {
    const first = await scoreRuns(runs, { reward: "smtl", judges: { answer: countingJudge().judge } });
    const { judge, asked } = countingJudge();
    const earlier = new Map(first.filter((r) => r.runId !== "a2").map((r) => [r.runId, r]));
    const again = await scoreRuns(runs, { reward: "smtl", judges: { answer: judge }, earlier });
    expect(asked).toEqual(["Nice"]);
    expect(again.map((r) => r.reward)).toEqual(first.map((r) => r.reward));
    // GRPO over (1, 0, 0): mean 1/3, sample std √(1/3).
    const std = Math.sqrt(1 / 3);
    expect(again[0]!.advantage).toBeCloseTo((1 - 1 / 3) / (std + 1e-6), 9);
    expect(again[3]!.advantage).toBe(0);
  });

  it("checks the rows before any judge call, and refuses what does not score rollouts", () => {
    const bare = [fixtureRun({ runId: "x", row: fixtureRow({ id: "q9" }) })];
    const cases: [string, string][] = [
      ["smtl", "question q9 has none"],
      ["minddr-search", "key entities"],
      ["minddr-report", "a reference report"],
      ["rubric", "a query-specific rubric"],
      ["rubric-generator", "preference rows, not rollouts"],
      ["bleu", 'unknown reward "bleu"'],
    ];
    for (const [name, text] of cases) {
      try {
        checkRunsForReward(name, bare);
        expect.unreachable();
      } catch (error) {
        expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
        expect((error as Error).message).toContain(text);
      }
    }
    // warp reads WARP's drafts: it scores warp rollouts, whatever their rows hold, and no other
    const warp = [fixtureRun({ runId: "w", strategy: "warp", row: fixtureRow({ id: "q9" }) })];
    expect(checkRunsForReward("warp", warp)).toBe("warp");
    const smtlRun = fixtureRun({ runId: "s", strategy: "smtl", row: fixtureRow({ id: "q9" }) });
    expect(() => checkRunsForReward("warp", [...warp, smtlRun])).toThrow(
      /scores warp rollouts.*smtl rollouts/,
    );
  });
});
