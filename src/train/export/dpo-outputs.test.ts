/**
 * Which output of a run a DPO pair holds (the short answer, else the report; blank is none),
 * which run a skipped pair names, the refusal of runs of different questions (id or prompt), and
 * what the metadata and system-turn options add — and only add when asked.
 */

import { describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import { fixtureRow } from "../test-fixtures.ts";
import { dpoRecordSchema, dpoRecords, runOutput } from "./dpo.ts";
import { groupRun, ROW } from "./test-fixtures.ts";

const pair = (chosen = groupRun(0, "New York City", null), rejected = groupRun(1, "Boston", null)) => ({
  input: "q1",
  chosen,
  rejected,
  chosenReward: 0.75,
  rejectedReward: 0.25,
});

describe("a run's output for DPO", () => {
  it("is its short answer, else its report; blank text is no output", () => {
    expect(runOutput(groupRun(0, "NYC", "# Report"))).toBe("NYC");
    expect(runOutput(groupRun(0, " \n", "# Report"))).toBe("# Report");
    expect(runOutput({ ...groupRun(0, "", "# Report"), answer: null })).toBe("# Report");
    expect(runOutput(groupRun(0, "", " \n"))).toBeNull();
    expect(runOutput({ ...groupRun(0, "", null), answer: null })).toBeNull();
  });

  it("missing on either side skips the pair, naming the run without one", () => {
    expect(dpoRecords([pair(groupRun(0, " ", null))]).skipped).toEqual([
      { runId: "run-0", reason: "the run has neither a report nor an answer" },
    ]);
    const both = dpoRecords([pair(groupRun(0, "", null), groupRun(1, "", null)), pair()]);
    expect(both.skipped.map((s) => s.runId)).toEqual(["run-0"]);
    expect(both.records).toHaveLength(1);
  });
});

describe("dpo pairs", () => {
  it("answer one question: same id and same prompt, else refused with both runs named", () => {
    const otherId = { ...groupRun(1, "Boston", null), row: fixtureRow({ id: "q2", prompt: ROW.prompt }) };
    const otherPrompt = { ...groupRun(1, "Boston", null), row: { ...ROW, prompt: "Which museum?" } };
    for (const rejected of [otherId, otherPrompt]) {
      try {
        dpoRecords([pair(undefined, rejected)]);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(DossierError);
        expect((error as DossierError).code).toBe("INPUT_INVALID");
        expect((error as DossierError).message).toBe(
          `a DPO pair answers one question: run-0 answers q1, run-1 answers ${rejected.row.id}`,
        );
      }
    }
  });

  it("carry no metadata unless asked, then the question, both runs and both rewards", () => {
    const [plain] = dpoRecords([pair()], { metadata: false }).records;
    expect(Object.keys(plain!).sort()).toEqual(["chosen", "prompt", "rejected"]);
    const [standard] = dpoRecords([pair()], {
      style: "standard",
      metadata: true,
      systemPrompt: "ignored",
    }).records;
    expect(standard).toEqual({
      prompt: ROW.prompt,
      chosen: "New York City",
      rejected: "Boston",
      question_id: "q1",
      chosen_run_id: "run-0",
      rejected_run_id: "run-1",
      chosen_reward: 0.75,
      rejected_reward: 0.25,
    });
    expect(dpoRecordSchema.parse(standard)).toEqual(standard);
  });

  it("refuse empty metadata names in either form", () => {
    const [conversational] = dpoRecords([pair()], { metadata: true }).records;
    const [standard] = dpoRecords([pair()], { style: "standard", metadata: true }).records;
    for (const ok of [conversational, standard]) {
      expect(dpoRecordSchema.safeParse(ok).success).toBe(true);
      for (const key of ["question_id", "chosen_run_id", "rejected_run_id"])
        expect(dpoRecordSchema.safeParse({ ...ok, [key]: "" }).success, key).toBe(false);
      for (const key of ["chosen_reward", "rejected_reward"])
        expect(dpoRecordSchema.safeParse({ ...ok, [key]: "1" }).success, key).toBe(false);
    }
    expect(dpoRecordSchema.safeParse({ prompt: "", chosen: "a", rejected: "b" }).success).toBe(false);
    expect(dpoRecordSchema.safeParse({ prompt: "q", chosen: "a", rejected: "" }).success).toBe(false);
    expect(
      dpoRecordSchema.safeParse({
        prompt: [],
        chosen: conversational!.chosen,
        rejected: conversational!.rejected,
      }).success,
    ).toBe(false);
  });
});
