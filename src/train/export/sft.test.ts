import { describe, expect, it } from "vitest";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import { continuesCall, sftRecordSchema, sftRecords } from "./sft.ts";
import { groupRun, SEARCH_TOOL } from "./test-fixtures.ts";
import { jsonlText } from "./write.ts";

const run = groupRun(0, "New York City", null);
const TOOLS = [
  {
    type: "function",
    function: { name: "web_search", description: "Search the web", parameters: SEARCH_TOOL.parameters },
  },
];
const SYSTEM = { role: "system", content: "You are a search agent. Cite evidence ids." };
const USER = { role: "user", content: "Which city hosts the Museum of the Moving Image?" };
const TOOL_TURNS = [
  {
    role: "assistant",
    content: "",
    tool_calls: [
      {
        id: "c1",
        type: "function",
        function: { name: "web_search", arguments: '{"query":"Museum of the Moving Image city"}' },
      },
    ],
  },
  { role: "tool", tool_call_id: "c1", content: "[E1] The museum is in Astoria, Queens." },
];
const L3_ANSWER = {
  role: "assistant",
  content: "Astoria is in Queens, New York City. Answer: New York City [E1]",
};

/** Every line of the JSONL text parses and satisfies the documented shape. */
function validLines(records: unknown[]) {
  const lines = jsonlText(records).split("\n");
  expect(lines.pop()).toBe(""); // each line ends with a newline
  return lines.map((line) => sftRecordSchema.parse(JSON.parse(line)));
}

describe("sft export, one conversation per call", () => {
  it("writes the messages the model saw and its raw completion, skipping failed and malformed calls", () => {
    const { records, skipped } = sftRecords([run]);
    expect(records.map((r) => r.messages.at(-1)!.content)).toEqual([
      '{"steps":["find the museum"]}',
      '{"tool":"web_search","query":"Museum of the Moving Image city"}',
      L3_ANSWER.content,
    ]);
    expect(records[2]).toEqual({ messages: [SYSTEM, USER, ...TOOL_TURNS, L3_ANSWER], tools: TOOLS });
    expect(records[0]).not.toHaveProperty("tools"); // a response schema is no tool
    expect(skipped).toEqual([
      { runId: "run-0", callId: "L4", reason: "the call failed (TIMEOUT)" },
      { runId: "run-0", callId: "L5", reason: "format errors: not JSON" },
    ]);
    expect(validLines(records)).toEqual(records);
  });

  it("keeps format errors when asked, and filters by role and scope", () => {
    expect(sftRecords([run], { keepFormatErrors: true }).records).toHaveLength(4);
    const searcher = sftRecords([run], { roles: ["searcher"] }).records;
    expect(searcher.map((r) => r.messages.length)).toEqual([3, 5]);
    expect(sftRecords([run], { scope: (s) => s === "planner" }).records).toHaveLength(1);
  });

  it("writes tool-call arguments as objects on request; arguments that are no object skip the example", () => {
    const { records } = sftRecords([run], { toolArguments: "object", roles: ["searcher"] });
    const assistant = records[1]!.messages[2] as { tool_calls: { function: { arguments: unknown } }[] };
    expect(assistant.tool_calls[0]!.function.arguments).toEqual({ query: "Museum of the Moving Image city" });
    expect(validLines(records)).toHaveLength(2);

    const broken = fixtureRun({
      calls: [
        fixtureCall({
          callId: "L1",
          step: 1,
          messages: [
            USER as never,
            { role: "assistant", content: "", toolCalls: [{ id: "x", name: "f", arguments: "{oops" }] },
          ],
        }),
      ],
    });
    expect(sftRecords([broken]).records).toHaveLength(1); // as text it is kept verbatim
    expect(sftRecords([broken], { toolArguments: "object" }).skipped).toEqual([
      { runId: "run-1", callId: "L1", reason: "tool call x: arguments are not JSON" },
    ]);
  });

  it("skips a conversation whose tool turn answers no earlier tool call", () => {
    const orphan = fixtureRun({
      calls: [
        fixtureCall({
          callId: "L1",
          step: 1,
          messages: [USER as never, { role: "tool", toolCallId: "ghost", content: "result" }],
        }),
      ],
    });
    const { records, skipped } = sftRecords([orphan]);
    expect(records).toEqual([]);
    expect(skipped[0]!.reason).toMatch(/ghost, which no earlier assistant turn asked for/);
  });
});

describe("sft export, one conversation per agent trajectory", () => {
  it("ends each conversation at the agent's last call, its history included", () => {
    expect(continuesCall(run.calls[1]!, run.calls[2]!)).toBe(true);
    expect(continuesCall(run.calls[2]!, run.calls[1]!)).toBe(false);
    const { records, skipped } = sftRecords([run], { unit: "trajectory" });
    // planner: one call; search:T-1: L2 is continued by L3, so one conversation ending at L3
    expect(records).toEqual([
      {
        messages: [
          SYSTEM,
          { role: "user", content: "Plan the search." },
          sftRecords([run]).records[0]!.messages[2],
        ],
      },
      { messages: [SYSTEM, USER, ...TOOL_TURNS, L3_ANSWER], tools: TOOLS },
    ]);
    // report: two separate calls (different prompts), one failed, one malformed
    expect(skipped.map((s) => s.callId)).toEqual(["L4", "L5"]);
    expect(validLines(records)).toEqual(records);
  });

  it("leaves out a conversation that holds a malformed answer, unless asked to keep it", () => {
    const calls = run.calls.map((c) => (c.callId === "L2" ? { ...c, formatErrors: ["no tool call"] } : c));
    const faulty = { ...run, calls };
    const { records, skipped } = sftRecords([faulty], { unit: "trajectory", roles: ["searcher"] });
    expect(records).toEqual([]);
    expect(skipped).toEqual([
      { runId: "run-0", callId: "L3", reason: "the conversation holds L2, which raised format errors" },
    ]);
    expect(
      sftRecords([faulty], { unit: "trajectory", roles: ["searcher"], keepFormatErrors: true }).records,
    ).toHaveLength(1);
  });

  it("gives one conversation per step to an agent that starts afresh at every step", () => {
    const fresh = fixtureRun({
      calls: [1, 2, 3].map((step) =>
        fixtureCall({
          callId: `L${step}`,
          step,
          scope: "search:T-1",
          messages: [{ role: "user", content: `step ${step}` }],
        }),
      ),
    });
    expect(sftRecords([fresh], { unit: "trajectory" }).records).toHaveLength(3);
  });
});

describe("sft record schema", () => {
  it("refuses what TRL and OpenAI fine-tuning would not read", () => {
    const ok = { messages: [USER, { role: "assistant", content: "Queens" }] };
    expect(sftRecordSchema.safeParse(ok).success).toBe(true);
    const bad = [
      { messages: [USER, { role: "assistant", content: "x" }, USER] }, // ends on a user turn
      { messages: [{ role: "assistant", content: "x" }] }, // one message
      { messages: [USER, { role: "assistant", content: "x", toolCalls: [] }] }, // not the chat format
      { messages: [USER, { role: "critic", content: "x" }] },
      { ...ok, tools: [{ name: "web_search", parameters: {} }] }, // a tool without type/function
      { ...ok, runId: "run-0" }, // no other field
    ];
    for (const record of bad)
      expect(sftRecordSchema.safeParse(record).success, JSON.stringify(record)).toBe(false);
  });
});
