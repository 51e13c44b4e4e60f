/**
 * What an rl line carries and which calls get one: the role and scope filters, the optional
 * fields present only when the call had them (scope, tools, finish reason), tool arguments as
 * objects, and the reasons a call or conversation is left out (failed, arguments that are no
 * object, a line a trainer could not read); unit run's chat and its completion when there is no
 * output.
 */

import { describe, expect, it } from "vitest";
import type { RecordedCall } from "../recorded-call.ts";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import { rlRecords, type ScoredRun } from "./rl.ts";
import { groupRun, SEARCH_TOOL, scoredGroup } from "./test-fixtures.ts";

const ORPHAN_REASON =
  "✖ tool turn answers ghost, which no earlier assistant turn asked for; → at messages[1].tool_call_id; " +
  "✖ tool turn answers ghost2, which no earlier assistant turn asked for; → at messages[2].tool_call_id";

const OPEN_TOOL = {
  name: "open_page",
  parameters: { type: "object", properties: { url: { type: "string" } } },
};

function alone(calls: RecordedCall[], fields: Partial<ScoredRun["run"]> = {}): ScoredRun[] {
  return [{ run: fixtureRun({ calls, ...fields }), reward: { reward: 0.5, components: {} } }];
}

/** Calls of one scope: a broken tool-call argument, an orphan tool turn, then a good call. */
function troubledCalls(): RecordedCall[] {
  return [
    fixtureCall({
      callId: "L1",
      step: 1,
      scope: "a",
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "", toolCalls: [{ id: "x", name: "f", arguments: "{oops" }] },
      ],
    }),
    fixtureCall({
      callId: "L2",
      step: 1,
      scope: "b",
      messages: [
        { role: "user", content: "q" },
        { role: "tool", toolCallId: "ghost", content: "r" },
        { role: "tool", toolCallId: "ghost2", content: "r" },
      ],
    }),
    fixtureCall({ callId: "L3", step: 1, scope: "c", finishReason: "stop" }),
  ];
}

describe("rl export, which calls get a line", () => {
  it('keeps the calls of the given roles, and of the scopes the filter accepts (no scope: "")', () => {
    const ids = (options: Parameters<typeof rlRecords>[1]) =>
      rlRecords(scoredGroup(), options).records.map((r) => r.id);
    expect(ids({ roles: ["searcher"] })).toEqual([
      "run-0/L2",
      "run-0/L3",
      "run-1/L2",
      "run-1/L3",
      "run-2/L2",
      "run-2/L3",
      "run-9/L1",
    ]);
    expect(ids({ roles: ["planner", "writer"], scope: (s) => s !== "planner" })).toEqual([
      "run-0/L5",
      "run-1/L5",
      "run-2/L5",
    ]);
    expect(ids({ scope: (s) => s === "" })).toEqual(["run-9/L1"]);
    expect(ids({ unit: "trajectory", roles: ["planner"] })).toEqual(["run-0/L1", "run-1/L1", "run-2/L1"]);
    expect(ids({ unit: "trajectory", scope: (s) => s === "search:T-1" })).toEqual([
      "run-0/L2",
      "run-1/L2",
      "run-2/L2",
    ]);
  });

  it("skips a failed call, a call whose tool arguments are no object (object form), and a line a trainer could not read", () => {
    const { records, skipped } = rlRecords(alone(troubledCalls()), { toolArguments: "object" });
    expect(records.map((r) => r.id)).toEqual(["run-1/L3"]);
    expect(skipped).toEqual([
      { runId: "run-1", callId: "L1", reason: "tool call x: arguments are not JSON" },
      { runId: "run-1", callId: "L2", reason: ORPHAN_REASON },
    ]);
    // as text the arguments are kept verbatim
    const text = rlRecords(alone(troubledCalls()));
    expect(text.records.map((r) => r.id)).toEqual(["run-1/L1", "run-1/L3"]);
    expect(rlRecords(scoredGroup()).skipped[0]).toEqual({
      runId: "run-0",
      callId: "L4",
      reason: "the call failed (TIMEOUT)",
    });
  });

  it("skips the same conversations in unit trajectory, with the same reasons", () => {
    const { records, skipped } = rlRecords(alone(troubledCalls()), {
      unit: "trajectory",
      toolArguments: "object",
    });
    expect(records.map((r) => r.call_ids)).toEqual([["L3"]]);
    expect(skipped).toEqual([
      { runId: "run-1", callId: "L1", reason: "tool call x: arguments are not JSON" },
      { runId: "run-1", callId: "L2", reason: ORPHAN_REASON },
    ]);
  });
});

describe("rl export, what a line carries", () => {
  it("unit call: scope, tools and finish reason only when the call had them; tool arguments as objects on request", () => {
    const calls = [
      fixtureCall({ callId: "L1", step: 1, tools: [], finishReason: "length" }),
      fixtureCall({ callId: "L2", step: 2, scope: "s", tools: [SEARCH_TOOL, OPEN_TOOL] }),
    ];
    const [first, second] = rlRecords(alone(calls)).records;
    expect(first).not.toHaveProperty("scope");
    expect(first).not.toHaveProperty("tools");
    expect(first).toMatchObject({ finish_reason: "length", step: 1, model: "openai-compatible:policy" });
    expect(first!.sampling).toEqual({ temperature: 1, topP: 1 });
    expect(second).not.toHaveProperty("finish_reason");
    expect(second).toMatchObject({ scope: "s", step: 2 });
    expect(second!.tools).toEqual([
      {
        type: "function",
        function: { name: "web_search", description: "Search the web", parameters: SEARCH_TOOL.parameters },
      },
      { type: "function", function: { name: "open_page", parameters: OPEN_TOOL.parameters } },
    ]);
    const objects = rlRecords([{ run: groupRun(0, "x", null), reward: { reward: 1, components: {} } }], {
      toolArguments: "object",
    }).records.find((r) => r.call_id === "L3")!;
    expect(objects.messages[2]).toMatchObject({
      tool_calls: [{ function: { arguments: { query: "Museum of the Moving Image city" } } }],
    });
  });

  it("unit trajectory: its first call names the line, its last gives role, scope, step, tools and finish reason", () => {
    const history = [
      { role: "user" as const, content: "task" },
      { role: "assistant" as const, content: "step 1" },
      { role: "user" as const, content: "result" },
    ];
    const calls = [
      fixtureCall({
        callId: "L1",
        step: 1,
        role: "searcher",
        messages: history.slice(0, 1),
        completion: "step 1",
      }),
      fixtureCall({
        callId: "L2",
        step: 2,
        role: "writer",
        messages: history,
        completion: "done",
        tools: [SEARCH_TOOL],
        finishReason: "stop",
      }),
      fixtureCall({ callId: "L3", step: 1, scope: "other", tools: [] }),
    ];
    const [line, other] = rlRecords(alone(calls), { unit: "trajectory" }).records;
    expect(line).toMatchObject({
      id: "run-1/L1",
      call_id: "L2",
      call_ids: ["L1", "L2"],
      role: "writer",
      step: 2,
      completion: "done",
      finish_reason: "stop",
      assistant_loss_mask: [1],
      loss_mask: 1,
      model: "openai-compatible:policy",
      sampling: { temperature: 1, topP: 1 },
    });
    expect(line).not.toHaveProperty("scope");
    expect(line!.tools).toHaveLength(1);
    expect(other).toMatchObject({ id: "run-1/L3", scope: "other" });
    expect(other).not.toHaveProperty("tools");
    expect(other).not.toHaveProperty("finish_reason");
  });

  it("unit run: an optional system turn before the question; no answer nor report gives an empty completion; a cancelled rollout is a sample", () => {
    const runs = [
      { run: { ...groupRun(0, "", "# Report"), answer: null }, reward: { reward: 1, components: {} } },
      {
        run: { ...groupRun(1, "", null), answer: null, status: "cancelled" as const },
        reward: { reward: 0, components: {} },
      },
    ];
    const { records } = rlRecords(runs, { unit: "run", systemPrompt: "Answer briefly." });
    expect(records.map((r) => [r.completion, r.status])).toEqual([
      ["# Report", "completed"],
      ["", "cancelled"],
    ]);
    expect(records[0]!.messages).toEqual([
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "Which city hosts the Museum of the Moving Image?" },
    ]);
    expect(records[0]).not.toHaveProperty("call_id");
    expect(records[0]).not.toHaveProperty("format_errors");
  });
});
