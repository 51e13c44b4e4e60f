import { describe, expect, it } from "vitest";
import type { RecordedCall } from "../recorded-call.ts";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import { rlRecordSchema, rlRecords } from "./rl.ts";
import { scoredGroup } from "./test-fixtures.ts";

const sys = { role: "system" as const, content: "You are a search agent." };
const task = { role: "user" as const, content: "Task: where is the museum?" };
const said = (text: string) => ({ role: "assistant" as const, content: text });
const told = (text: string) => ({ role: "user" as const, content: text });

/**
 * One agent's conversation: step 1 answered, step 2 refused once (malformed) and re-sampled from
 * the same history, step 3 the answer.
 */
function agentCalls(): RecordedCall[] {
  const call = (
    callId: string,
    step: number,
    messages: RecordedCall["messages"],
    completion: string,
    bad = false,
  ) =>
    fixtureCall({
      runId: "run-7",
      callId,
      role: "searcher",
      scope: "smtl",
      step,
      messages,
      completion,
      ...(bad ? { formatErrors: ["the reply must end with </tool_call>"] } : {}),
    });
  return [
    call("L1", 1, [sys, task], "<tool_call>a</tool_call>"),
    call("L2", 2, [sys, task, said("<tool_call>a</tool_call>"), told("results a")], "<tool_call>b", true),
    call(
      "L3",
      2,
      [sys, task, said("<tool_call>a</tool_call>"), told("results a")],
      "<tool_call>b</tool_call>",
    ),
    call(
      "L4",
      3,
      [
        sys,
        task,
        said("<tool_call>a</tool_call>"),
        told("results a"),
        said("<tool_call>b</tool_call>"),
        told("results b"),
      ],
      "<answer>Astoria</answer>",
    ),
  ];
}

describe("rl export, one line per agent conversation", () => {
  it("gives the history once: each assistant turn is trained in one line, a refused reply never", () => {
    const run = fixtureRun({ runId: "run-7", strategy: "smtl", calls: agentCalls(), answer: "Astoria" });
    const { records, skipped } = rlRecords([{ run, reward: { reward: 1, components: {} } }], {
      unit: "trajectory",
    });
    expect(skipped).toEqual([]);
    // One conversation: both accepted step replies in its messages, the answer last; the refused
    // reply (re-sampled from the same history) is not in it, its error is named.
    expect(records.map((r) => [r.call_ids, r.assistant_loss_mask, r.loss_mask])).toEqual([
      [["L1", "L3", "L4"], [1, 1], 1],
    ]);
    const full = records[0]!;
    expect(full.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(full.completion).toBe("<answer>Astoria</answer>");
    expect(full.format_errors).toEqual(["the reply must end with </tool_call>"]);
    expect(full.messages[4]!.content).toBe("<tool_call>b</tool_call>");
    for (const r of records) expect(rlRecordSchema.safeParse(r).success).toBe(true);
    // Every accepted reply is trained exactly once across the lines; the refused one never.
    const trained = records.flatMap((r) => [
      ...r.assistant_loss_mask!.flatMap((m, i) => (m ? [r.call_ids![i]] : [])),
      ...(r.loss_mask ? [r.call_ids!.at(-1)] : []),
    ]);
    expect(trained.sort()).toEqual(["L1", "L3", "L4"]);
  });

  it("keeps the group's advantage on each line, and one line per conversation of every run", () => {
    const { records } = rlRecords(scoredGroup(), { unit: "trajectory" });
    // Per fixture run: planner, the search conversation (L2 → L3) and the malformed writer call.
    expect(records.filter((r) => r.run_id === "run-0").map((r) => r.call_ids)).toEqual([
      ["L1"],
      ["L2", "L3"],
      ["L5"],
    ]);
    expect(records.find((r) => r.run_id === "run-0" && r.call_id === "L5")!.loss_mask).toBe(0);
    const byRun = new Map(rlRecords(scoredGroup()).records.map((r) => [r.run_id, r.advantage]));
    for (const r of records) expect(r.advantage).toBe(byRun.get(r.run_id));
  });
});
