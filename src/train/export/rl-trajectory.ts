/**
 * The `rl` export's `trajectory` unit: one line per agent conversation (sft.ts's
 * `conversations`: within a scope, calls that carry an earlier call's messages and its answer
 * continue it), so a multi-turn trainer gets the history once instead of once per call.
 *
 * A line's `messages` are the conversation before its last answer and `completion` that answer;
 * `assistant_loss_mask` has one entry per assistant turn of `messages`, in order: 1 to train on
 * it, 0 when no accepted call of the conversation produced it or when the turn is trained in a
 * longer conversation of the run already (each accepted reply is trained once). A reply refused
 * and re-sampled from the same history is not in the conversation's messages (the agent never
 * saw it again); its format errors are in the line's `format_errors`, and it is trained nowhere.
 * `loss_mask` is the last answer's. `call_ids` are the calls whose replies the line holds, in
 * order (the last one's is `completion`).
 */

import type { RecordedCall } from "../recorded-call.ts";
import { callFormatOk } from "../recorded-call.ts";
import { conversations } from "./sft.ts";

/** One conversation of a run, with what to train on. */
export interface TrajectoryLine {
  last: RecordedCall;
  /** The calls whose replies the line holds, in order; the last is `last`. */
  calls: RecordedCall[];
  /** Every call of the conversation, refused re-samples included. */
  members: RecordedCall[];
  /** Per assistant turn of `last.messages`, in order. */
  assistantMask: (0 | 1)[];
  /** The last answer's mask. */
  lossMask: 0 | 1;
}

/** The conversations of `calls` (failed calls left out) with their masks. */
export function trajectoryLines(calls: readonly RecordedCall[]): TrajectoryLine[] {
  const usable = calls.filter((c) => !c.error);
  const found = conversations(usable);
  // Longest first: a turn shared by several conversations is trained in the longest.
  const byLength = [...found].sort((a, b) => b.last.messages.length - a.last.messages.length);
  const trained = new Set<string>();
  const lines = new Map<RecordedCall, Omit<TrajectoryLine, "last" | "members">>();
  for (const { last, members } of byLength) {
    const assistantMask: (0 | 1)[] = [];
    const producers: RecordedCall[] = [];
    last.messages.forEach((m, i) => {
      if (m.role !== "assistant") return;
      // The call that answered turn i saw the i messages before it: the accepted one of them.
      const producer = members.filter((c) => c !== last && c.messages.length === i && callFormatOk(c)).at(-1);
      const train = producer !== undefined && !trained.has(producer.callId);
      if (producer) {
        producers.push(producer);
        trained.add(producer.callId);
      }
      assistantMask.push(train ? 1 : 0);
    });
    const lossMask = callFormatOk(last) && !trained.has(last.callId) ? 1 : 0;
    trained.add(last.callId);
    lines.set(last, { calls: [...producers, last], assistantMask, lossMask });
  }
  return found.map(({ last, members }) => ({ last, members, ...lines.get(last)! }));
}
