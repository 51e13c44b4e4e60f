import { describe, expect, it } from "vitest";
import { dpoPairs } from "../curation/dpo-pairs.ts";
import { fixtureRow } from "../test-fixtures.ts";
import {
  dpoConversationalRecordSchema,
  dpoRecordSchema,
  dpoRecords,
  dpoStandardRecordSchema,
  runOutput,
} from "./dpo.ts";
import { groupRun, ROW, scoredGroup } from "./test-fixtures.ts";
import { jsonlText } from "./write.ts";

const pairs = () =>
  dpoPairs(scoredGroup().map((s) => ({ input: s.run.row.id, output: s.run, reward: s.reward.reward })));

describe("dpo export", () => {
  it("pairs the best and worst run of a question as prompt, chosen and rejected chats", () => {
    const { records, skipped } = dpoRecords(pairs());
    // q1: run-0 (1) against run-1 (0), each by the answer its reward judged (run-0's report
    // only wraps it); q2 has one run, no pair
    expect(records).toEqual([
      {
        prompt: [{ role: "user", content: ROW.prompt }],
        chosen: [{ role: "assistant", content: "New York City" }],
        rejected: [{ role: "assistant", content: "Boston" }],
      },
    ]);
    expect(skipped).toEqual([]);
    const lines = jsonlText(records).trimEnd().split("\n");
    expect(lines.map((l) => dpoConversationalRecordSchema.parse(JSON.parse(l)))).toEqual(records);
  });

  it("writes plain strings in the standard style, a system turn and metadata on request", () => {
    const [standard] = dpoRecords(pairs(), { style: "standard" }).records;
    expect(standard).toEqual({
      prompt: ROW.prompt,
      chosen: "New York City",
      rejected: "Boston",
    });
    expect(dpoStandardRecordSchema.parse(standard)).toEqual(standard);
    const [full] = dpoRecords(pairs(), { systemPrompt: "Be exact.", metadata: true }).records;
    expect(full).toMatchObject({
      prompt: [
        { role: "system", content: "Be exact." },
        { role: "user", content: ROW.prompt },
      ],
      question_id: "q1",
      chosen_run_id: "run-0",
      rejected_run_id: "run-1",
      chosen_reward: 1,
      rejected_reward: 0,
    });
    expect(dpoRecordSchema.safeParse(full).success).toBe(true);
  });

  it("skips a pair whose run has no output and refuses runs of different questions", () => {
    const empty = groupRun(1, "", null);
    const pair = {
      input: "q1",
      chosen: groupRun(0, "x", "# R"),
      rejected: empty,
      chosenReward: 1,
      rejectedReward: 0,
    };
    expect(runOutput(empty)).toBeNull();
    // a research run gives no short answer: its report is what was judged
    expect(runOutput(groupRun(3, "", "# Report\n\nText [1]."))).toBe("# Report\n\nText [1].");
    expect(dpoRecords([pair])).toEqual({
      records: [],
      skipped: [{ runId: "run-1", reason: "the run has neither a report nor an answer" }],
    });
    const other = { ...groupRun(2, "y", null), row: fixtureRow({ id: "q2", prompt: "Who?" }) };
    expect(() => dpoRecords([{ ...pair, rejected: other }])).toThrow(/one question/);
  });

  it("its schema refuses what DPOTrainer would misread", () => {
    const ok = dpoRecords(pairs()).records[0]!;
    const bad = [
      { ...ok, chosen: [{ role: "user", content: "x" }] },
      { ...ok, chosen: [] },
      { ...ok, prompt: [{ role: "assistant", content: "x" }] },
      { prompt: ok.prompt, chosen: ok.chosen },
      { ...ok, note: "extra" },
      { prompt: "q", chosen: "", rejected: "b" },
    ];
    for (const record of bad)
      expect(dpoRecordSchema.safeParse(record).success, JSON.stringify(record)).toBe(false);
  });
});
