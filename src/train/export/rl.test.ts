import { describe, expect, it } from "vitest";
import { rlRecordSchema, rlRecords, runAdvantages } from "./rl.ts";
import { scoredGroup } from "./test-fixtures.ts";
import { jsonlText } from "./write.ts";

// q1 rewards 1, 0, 1: mean 2/3, sample std √(1/3) (GRPO, ε = 1e-6); RLOO: 1 − ½, 0 − 1, 1 − ½
const STD = Math.sqrt(1 / 3) + 1e-6;
const GRPO = [1 / 3 / STD, -2 / 3 / STD, 1 / 3 / STD];

describe("rl export", () => {
  it("gives each run its group advantage, GRPO by default or RLOO", () => {
    const grpo = runAdvantages(scoredGroup()).advantages;
    for (const [i, id] of ["run-0", "run-1", "run-2"].entries())
      expect(grpo.get(id)).toBeCloseTo(GRPO[i]!, 12);
    expect(grpo.get("run-9")).toBe(0); // a group of one
    const rloo = runAdvantages(scoredGroup(), { advantage: "rloo" }).advantages;
    expect([...rloo.values()]).toEqual([0.5, -1, 0.5, 0]);
  });

  it("writes one line per successful call with the run's reward, components, group and advantage", () => {
    const { records, skipped } = rlRecords(scoredGroup());
    expect(records).toHaveLength(3 * 4 + 1); // L1, L2, L3, L5 of each q1 run; run-9's call
    expect(skipped.map((s) => `${s.runId}/${s.callId}`)).toEqual(["run-0/L4", "run-1/L4", "run-2/L4"]);
    const l3 = records.find((r) => r.id === "run-1/L3")!;
    expect(l3).toMatchObject({
      unit: "call",
      run_id: "run-1",
      question_id: "q1",
      strategy: "smtl",
      group_id: "q1",
      group_index: 1,
      call_id: "L3",
      role: "searcher",
      scope: "search:T-1",
      step: 2,
      completion: "Astoria is in Queens, New York City. Answer: Boston [E1]",
      reward: 0,
      reward_components: { correct: 0, formatValid: true },
    });
    expect(l3.advantage).toBeCloseTo(GRPO[1]!, 12);
    expect(l3.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(l3.tools).toHaveLength(1);
    // the malformed answer stays: its reward already counts it
    expect(records.some((r) => r.id === "run-0/L5")).toBe(true);
    const lines = jsonlText(records).trimEnd().split("\n");
    expect(lines.map((l) => rlRecordSchema.parse(JSON.parse(l)))).toEqual(records);
  });

  it("masks every refused reply (loss_mask 0, its format errors named) and names each line's policy and rollout status", () => {
    const failed = scoredGroup();
    failed[1] = { ...failed[1]!, run: { ...failed[1]!.run, status: "failed", stopReason: "error-budget" } };
    const { records } = rlRecords(failed);
    for (const r of records) {
      const refused = (r.format_errors ?? []).length > 0;
      expect(r.loss_mask).toBe(refused ? 0 : 1);
    }
    const masked = records.filter((r) => r.loss_mask === 0).map((r) => r.id);
    expect(masked).toEqual(["run-0/L5", "run-1/L5", "run-2/L5"]);
    expect(records.find((r) => r.id === "run-1/L5")).toMatchObject({
      format_errors: ["not JSON"],
      status: "failed",
      model: expect.stringMatching(/:/),
      sampling: expect.any(Object),
    });
    // a failed rollout is a sample: its calls are exported with its (negative) advantage
    expect(records.filter((r) => r.run_id === "run-1").every((r) => r.advantage < 0)).toBe(true);
    const { records: runs } = rlRecords(failed, { unit: "run" });
    expect(runs.map((r) => [r.run_id, r.status, r.loss_mask])).toEqual([
      ["run-0", "completed", 1],
      ["run-1", "failed", 1],
      ["run-2", "completed", 1],
      ["run-9", "completed", 1],
    ]);
  });

  it("writes one line per run: the question as the chat, the judged answer (else the report) as the completion", () => {
    const { records } = rlRecords(scoredGroup(), { unit: "run", advantage: "rloo" });
    expect(records.map((r) => [r.id, r.completion, r.advantage])).toEqual([
      ["run-0", "New York City", 0.5],
      ["run-1", "Boston", -1],
      ["run-2", "New York", 0.5],
      ["run-9", "Rochelle Slovin", 0],
    ]);
    expect(records[0]!.messages).toEqual([
      { role: "user", content: "Which city hosts the Museum of the Moving Image?" },
    ]);
    for (const r of records) expect(rlRecordSchema.safeParse(r).success).toBe(true);
  });

  it("drops the groups whose rewards are all equal when asked (DAPO)", () => {
    const { records, skipped } = rlRecords(scoredGroup(), { unit: "run", dropUniformGroups: true });
    expect(records.map((r) => r.run_id)).toEqual(["run-0", "run-1", "run-2"]);
    expect(skipped).toEqual([{ runId: "run-9", reason: "group q2: all rewards equal (no gradient)" }]);
  });

  it("refuses a run given twice and a non-finite reward", () => {
    const [a] = scoredGroup();
    expect(() => rlRecords([a!, a!])).toThrow(/run-0 is given twice/);
    expect(() => rlRecords([{ ...a!, reward: { reward: Number.NaN, components: {} } }])).toThrow(/finite/);
  });

  it("its schema refuses lines a trainer could not use", () => {
    const ok = rlRecords(scoredGroup(), { unit: "run" }).records[0]!;
    const bad = [
      { ...ok, advantage: Number.POSITIVE_INFINITY },
      { ...ok, reward: "1" },
      { ...ok, group_id: "" },
      { ...ok, messages: [] },
      { ...ok, apiKey: "x" },
      (({ reward_components: _, ...rest }) => rest)(ok),
    ];
    for (const record of bad) expect(rlRecordSchema.safeParse(record).success).toBe(false);
  });
});
