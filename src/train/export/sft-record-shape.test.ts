/**
 * The sft line's shape and the reasons a trainer-unreadable line is left out: it ends with the
 * assistant turn it teaches, every tool turn answers an earlier tool call (the reason names the
 * message), `tools` only when the call offered some (all of them); the scope filter sees "" for a
 * call with no scope.
 */

import { describe, expect, it } from "vitest";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import { sftRecordSchema, sftRecords } from "./sft.ts";
import { SEARCH_TOOL } from "./test-fixtures.ts";

const USER = { role: "user", content: "Which city?" } as const;
const OPEN_TOOL = { name: "open_page", parameters: { type: "object" } };

describe("sft record schema", () => {
  it("says a conversation must end with the assistant turn it teaches, on the messages", () => {
    const parsed = sftRecordSchema.safeParse({ messages: [USER, USER] });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues).toEqual([
      expect.objectContaining({
        code: "custom",
        path: ["messages"],
        message: "a conversation ends with the assistant turn it teaches",
      }),
    ]);
    expect(sftRecordSchema.safeParse({ messages: [] }).success).toBe(false);
  });
});

describe("sft export's lines", () => {
  it("skips a conversation whose tool turns answer no tool call, naming each turn", () => {
    const run = fixtureRun({
      calls: [
        fixtureCall({
          callId: "L1",
          step: 1,
          messages: [
            USER,
            { role: "tool", toolCallId: "ghost", content: "r" },
            { role: "tool", toolCallId: "ghost2", content: "r" },
          ],
        }),
      ],
    });
    expect(sftRecords([run]).skipped).toEqual([
      {
        runId: "run-1",
        callId: "L1",
        reason:
          "✖ tool turn answers ghost, which no earlier assistant turn asked for; → at messages[1].tool_call_id; " +
          "✖ tool turn answers ghost2, which no earlier assistant turn asked for; → at messages[2].tool_call_id",
      },
    ]);
  });

  it("offers every tool the call was offered, and none when it was offered an empty list", () => {
    const run = fixtureRun({
      calls: [
        fixtureCall({ callId: "L1", step: 1, tools: [SEARCH_TOOL, OPEN_TOOL] }),
        fixtureCall({ callId: "L2", step: 2, tools: [] }),
      ],
    });
    const { records, skipped } = sftRecords([run]);
    expect(skipped).toEqual([]);
    expect(records[0]!.tools!.map((t) => t.function.name)).toEqual(["web_search", "open_page"]);
    expect(records[1]).toEqual({
      messages: [
        { role: "user", content: "question" },
        { role: "assistant", content: "ok" },
      ],
    });
  });

  it('gives the scope filter "" for a call with no scope', () => {
    const run = fixtureRun({
      calls: [
        fixtureCall({ callId: "L1", step: 1, completion: "unscoped" }),
        fixtureCall({ callId: "L2", step: 1, scope: "agent", completion: "scoped" }),
      ],
    });
    const seen: string[] = [];
    const { records } = sftRecords([run], {
      scope: (s) => {
        seen.push(s);
        return s === "";
      },
    });
    expect(seen).toEqual(["", "agent"]);
    expect(records.map((r) => r.messages.at(-1)!.content)).toEqual(["unscoped"]);
  });
});
