/**
 * What the sft export never teaches: a reply the run refused. A repair round (the refused reply,
 * then why) is taught as the prompt before that reply, answered by the round's accepted
 * completion; a call that raised format errors is left out with them named unless asked to keep
 * it. And a forced-expansion warp run is taught pruned, its forced EXPAND on the unforced request.
 */

import { describe, expect, it } from "vitest";
import type { RecordedMessage } from "../recorded-call.ts";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import { rejectedReplies, sftRecords, withoutRejectedReplies } from "./sft.ts";
import { forcedWarpRun, TERMINATE_REPLY } from "./test-fixtures.ts";

const task: RecordedMessage = { role: "user", content: "Give the answer as JSON." };
const refused = "answer: Queens";
const why: RecordedMessage = { role: "user", content: "That was not JSON. Answer again." };

/** A writer asked, refused once, re-asked with the refused reply and the note, then accepted. */
function repairRun() {
  return fixtureRun({
    calls: [
      fixtureCall({
        callId: "L1",
        step: 1,
        scope: "w",
        messages: [task],
        completion: `  ${refused}\n`,
        formatErrors: ["not JSON", "no answer field"],
      }),
      fixtureCall({
        callId: "L2",
        step: 1,
        scope: "w",
        messages: [task, { role: "assistant", content: refused }, why],
        completion: '{"answer":"Queens"}',
      }),
    ],
  });
}

describe("refused replies", () => {
  it("are the trimmed completions of calls with format errors, empty ones aside", () => {
    const run = fixtureRun({
      calls: [
        fixtureCall({ callId: "L1", step: 1, completion: " bad \n", formatErrors: ["x"] }),
        fixtureCall({ callId: "L2", step: 2, completion: "   ", formatErrors: ["empty"] }),
        fixtureCall({ callId: "L3", step: 3, completion: "good" }),
      ],
    });
    expect([...rejectedReplies(run)]).toEqual(["bad"]);
  });

  it("cut a history before the first assistant turn that is one (a user turn with the same text stays)", () => {
    const messages: RecordedMessage[] = [
      { role: "user", content: "bad" },
      { role: "assistant", content: "fine" },
      { role: "assistant", content: " bad " },
      { role: "user", content: "again" },
    ];
    expect(withoutRejectedReplies(messages, new Set(["bad"]))).toEqual(messages.slice(0, 2));
    expect(withoutRejectedReplies(messages.slice(2), new Set(["bad"]))).toEqual([]);
    const whole = withoutRejectedReplies(messages, new Set(["other"]));
    expect(whole).toEqual(messages);
    expect(whole).not.toBe(messages);
  });

  it("a repair round is taught as the first prompt answered right; the refused call is left out with its errors", () => {
    const { records, skipped } = sftRecords([repairRun()]);
    expect(records).toEqual([
      {
        messages: [
          { role: "user", content: "Give the answer as JSON." },
          { role: "assistant", content: '{"answer":"Queens"}' },
        ],
      },
    ]);
    expect(skipped).toEqual([
      { runId: "run-1", callId: "L1", reason: "format errors: not JSON; no answer field" },
    ]);
  });

  it("kept on request, a refused call is taught as recorded, never as an earlier turn of another", () => {
    const { records, skipped } = sftRecords([repairRun()], { keepFormatErrors: true });
    expect(skipped).toEqual([]);
    expect(records.map((r) => r.messages.map((m) => m.content))).toEqual([
      ["Give the answer as JSON.", `  ${refused}\n`],
      ["Give the answer as JSON.", '{"answer":"Queens"}'],
    ]);
  });
});

describe("sft export of a forced-expansion warp run", () => {
  it("teaches the calls up to the best draft, the forced EXPAND on its unforced request, then TERMINATE", () => {
    const { records, skipped } = sftRecords([forcedWarpRun()]);
    expect(records.map((r) => r.messages)).toEqual([
      [
        { role: "user", content: "Write the first draft." },
        { role: "assistant", content: "# Draft 0" },
      ],
      [
        { role: "user", content: "Draft 0: expand a section or terminate?" },
        { role: "assistant", content: '{"name":"expand","section":"s1"}' },
      ],
      [
        { role: "user", content: "Write section s1." },
        { role: "assistant", content: "# Draft 1" },
      ],
      [
        { role: "user", content: "Draft 1: expand a section or terminate?" },
        { role: "assistant", content: TERMINATE_REPLY },
      ],
    ]);
    expect(skipped.map((s) => s.callId)).toEqual(["D2", "W3"]);
    const recorded = sftRecords([forcedWarpRun()], { warpPruning: false });
    expect(recorded.records.map((r) => r.messages[0]!.content)).toEqual([
      "Write the first draft.",
      "Draft 0: you must expand a section now.",
      "Write section s1.",
      "Draft 1: you must expand a section now.",
      "Write section s2.",
    ]);
    expect(recorded.skipped).toEqual([]);
  });

  it("skips a forced run that cannot be pruned whole, with the reason", () => {
    const run = forcedWarpRun();
    const old = { ...run, drafts: run.drafts.map(({ lastCallId: _, ...d }) => d) };
    expect(sftRecords([old])).toEqual({
      records: [],
      skipped: [
        {
          runId: "run-w",
          reason:
            "run run-w cannot be pruned: its drafts do not name the calls before them (recorded by an earlier version; record it again)",
        },
      ],
    });
  });
});
