/**
 * The trajectory unit's masks when conversations share turns or hold turns no recorded call
 * produced: an agent that branched from one reply trains that reply once, in its longest
 * conversation; an assistant turn the run did not sample (a few-shot example, a failed call's
 * slot) is never trained and names no call.
 */

import { describe, expect, it } from "vitest";
import type { RecordedCall, RecordedMessage } from "../recorded-call.ts";
import { fixtureCall } from "../test-fixtures.ts";
import { trajectoryLines } from "./rl-trajectory.ts";

const task: RecordedMessage = { role: "user", content: "task" };
const said = (content: string): RecordedMessage => ({ role: "assistant", content });
const told = (content: string): RecordedMessage => ({ role: "user", content });
const call = (
  callId: string,
  messages: RecordedMessage[],
  completion: string,
  fields: Partial<RecordedCall> = {},
) => fixtureCall({ callId, step: 1, scope: "agent", messages, completion, ...fields });

/** Shape of the lines a trainer reads: last call, calls held, per-turn mask, last answer's mask. */
function shape(calls: RecordedCall[]) {
  return trajectoryLines(calls).map((l) => ({
    last: l.last.callId,
    calls: l.calls.map((c) => c.callId),
    members: l.members.map((c) => c.callId),
    mask: l.assistantMask,
    loss: l.lossMask,
  }));
}

describe("trajectory lines of a branching agent", () => {
  it("trains a reply two conversations share once, in the longer one, whatever their order", () => {
    // B1 answered "a"; two continuations saw it: B2 (shorter, first) and B3 (longer, later).
    const calls = [
      call("B1", [task], "a"),
      call("B2", [task, said("a"), told("result 1")], "b"),
      call("B3", [task, said("a"), told("result 2"), told("and a hint")], "c"),
    ];
    expect(shape(calls)).toEqual([
      { last: "B2", calls: ["B1", "B2"], members: ["B1", "B2"], mask: [0], loss: 1 },
      { last: "B3", calls: ["B1", "B3"], members: ["B1", "B3"], mask: [1], loss: 1 },
    ]);
    // the longer conversation first in the run: the same choice
    const swapped = [calls[0]!, calls[2]!, calls[1]!];
    expect(shape(swapped).map((l) => [l.last, l.mask])).toEqual([
      ["B3", [1]],
      ["B2", [0]],
    ]);
  });

  it("never trains an assistant turn no recorded call produced, and names no call for it", () => {
    const fewShot = [told("example question"), said("example answer"), task];
    expect(shape([call("F1", fewShot, "answer")])).toEqual([
      { last: "F1", calls: ["F1"], members: ["F1"], mask: [0], loss: 1 },
    ]);
    // a failed call's reply is not in the history the next call saw, and the failure is left out
    const failed = call("X1", [task], "", { error: { code: "TIMEOUT", message: "late" } });
    const next = call("X2", [task, said("retried answer"), told("result")], "done");
    expect(shape([failed, next])).toEqual([
      { last: "X2", calls: ["X2"], members: ["X2"], mask: [0], loss: 1 },
    ]);
  });

  it("masks the last answer when it was refused", () => {
    const lines = shape([
      call("R1", [task], "a"),
      call("R2", [task, said("a"), told("r")], "bad", { formatErrors: ["no tag"] }),
    ]);
    expect(lines).toEqual([{ last: "R2", calls: ["R1", "R2"], members: ["R1", "R2"], mask: [1], loss: 0 }]);
  });
});
