/**
 * How the sft export finds an agent's conversations: a later call continues an earlier one only
 * when it carries every earlier message unchanged (role, content, tool call ids, names and
 * arguments, the tool turn's call id) and then an assistant turn; conversations are found per
 * scope and come in the order their last calls were made.
 */

import { describe, expect, it } from "vitest";
import type { RecordedCall, RecordedMessage } from "../recorded-call.ts";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import { continuesCall, conversations, sftRecords } from "./sft.ts";

const ask: RecordedMessage = {
  role: "assistant",
  content: "searching",
  toolCalls: [
    { id: "c1", name: "web_search", arguments: '{"query":"museum"}' },
    { id: "c2", name: "open_page", arguments: '{"url":"u"}' },
  ],
};
const history: RecordedMessage[] = [
  { role: "system", content: "agent" },
  { role: "user", content: "task" },
  ask,
  { role: "tool", toolCallId: "c1", content: "result 1" },
];
const reply: RecordedMessage = { role: "assistant", content: "next" };

const earlier = (messages = history) => fixtureCall({ callId: "E", step: 1, messages });
const later = (messages: RecordedMessage[]) => fixtureCall({ callId: "L", step: 2, messages });

describe("a call continues an earlier one", () => {
  it("when it carries the earlier messages unchanged, then an assistant turn", () => {
    expect(continuesCall(earlier(), later([...history, reply]))).toBe(true);
    expect(continuesCall(earlier(), later([...history, reply, { role: "user", content: "more" }]))).toBe(
      true,
    );
  });

  it("not when it holds no more messages, or the next one is not the assistant's", () => {
    expect(continuesCall(earlier(), later(history))).toBe(false);
    expect(continuesCall(earlier(), later(history.slice(0, 2)))).toBe(false);
    expect(continuesCall(earlier(), later([...history, { role: "user", content: "next" }]))).toBe(false);
  });

  it("not when any earlier message differs: role, content, tool call id, name, arguments or count, tool turn id", () => {
    const changed = (i: number, m: RecordedMessage) =>
      later([...history.slice(0, i), m, ...history.slice(i + 1), reply]);
    const toolCalls = ask.toolCalls!;
    const variants: [string, RecordedCall][] = [
      ["role", changed(1, { role: "system", content: "task" })],
      ["content", changed(1, { role: "user", content: "task!" })],
      ["tool call id", changed(2, { ...ask, toolCalls: [{ ...toolCalls[0]!, id: "cX" }, toolCalls[1]!] })],
      ["tool name", changed(2, { ...ask, toolCalls: [toolCalls[0]!, { ...toolCalls[1]!, name: "read" }] })],
      [
        "arguments",
        changed(2, { ...ask, toolCalls: [{ ...toolCalls[0]!, arguments: "{}" }, toolCalls[1]!] }),
      ],
      ["fewer tool calls", changed(2, { ...ask, toolCalls: [toolCalls[0]!] })],
      ["no tool calls", changed(2, { role: "assistant", content: "searching" })],
      ["tool turn id", changed(3, { role: "tool", toolCallId: "c2", content: "result 1" })],
    ];
    for (const [what, call] of variants) expect(continuesCall(earlier(), call), what).toBe(false);
  });

  it("reads no tool calls and an empty list of them as the same", () => {
    const plain: RecordedMessage[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: "a" },
    ];
    const empty: RecordedMessage[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: "a", toolCalls: [] },
    ];
    expect(continuesCall(earlier(plain), later([...empty, reply]))).toBe(true);
    expect(continuesCall(earlier(empty), later([...plain, reply]))).toBe(true);
  });
});

describe("an agent's conversations", () => {
  const c = (callId: string, scope: string | undefined, messages: RecordedMessage[]) =>
    fixtureCall({ callId, step: 1, messages, ...(scope === undefined ? {} : { scope }) });
  const t: RecordedMessage = { role: "user", content: "task" };
  const a: RecordedMessage = { role: "assistant", content: "ok" };

  it("are found within a scope (no scope is one scope), in the order their last calls were made", () => {
    const calls = [
      c("A1", "a", [t]),
      c("N1", undefined, [t]),
      c("B1", "b", [t]),
      c("A2", "a", [t, a, t]),
      c("N2", undefined, [t, a, t]),
    ];
    // B1 carries the same task as A1 but is another scope's: its own conversation
    expect(conversations(calls).map((x) => [x.last.callId, x.members.map((m) => m.callId)])).toEqual([
      ["B1", ["B1"]],
      ["A2", ["A1", "A2"]],
      ["N2", ["N1", "N2"]],
    ]);
    const run = fixtureRun({ calls: calls.map((x) => ({ ...x, completion: "ok" })) });
    expect(sftRecords([run], { unit: "trajectory" }).records.map((r) => r.messages.length)).toEqual([
      2, 4, 4,
    ]);
  });

  it("hold only the earlier calls their last call continues, even when a continuation was recorded first", () => {
    const calls = [
      c("X", "a", [{ role: "user", content: "another task" }]),
      c("A1", "a", [t]),
      c("Z", "a", [t, { role: "assistant", content: "other" }, t]),
      c("A2", "a", [t, a, t]),
    ];
    expect(conversations(calls).map((x) => [x.last.callId, x.members.map((m) => m.callId)])).toEqual([
      ["X", ["X"]],
      ["Z", ["A1", "Z"]],
      ["A2", ["A1", "A2"]],
    ]);
    // a continuation recorded before the call it continues does not end that call's conversation
    const early = [c("B2", "b", [t, a, t]), c("B1", "b", [t])];
    expect(conversations(early).map((x) => [x.last.callId, x.members.map((m) => m.callId)])).toEqual([
      ["B2", ["B2"]],
      ["B1", ["B1"]],
    ]);
  });
});
