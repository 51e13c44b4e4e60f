/**
 * A tag-protocol reply's tool calls, run as one step (seed: SMTL's inference loop): every
 * `<tool_call>` block gets a `<tool_response>`, in the order the calls were written — the
 * observation, or why the call was not run (malformed, made before, over the per-step cap or the
 * tool-call budget).
 */

import type { NativeCall } from "./native-format.ts";
import { toolResponse } from "./native-format.ts";
import { nativeObservation } from "./native-observation.ts";
import { describeCall } from "./protocol.ts";
import type { SmtlState } from "./state.ts";

/** Runs the calls that may run at once; the responses, one block per call. */
export async function runTagCalls(s: SmtlState, calls: readonly NativeCall[]): Promise<string> {
  const { steps } = s;
  const room = steps.room();
  const seen = new Set<string>();
  let runnable = 0;
  const batch = calls.map((c) => {
    if (!c.ok) return { c, run: false, note: `error: ${c.error}` };
    const earlier = steps.madeIn(c.call);
    const key = describeCall(c.call).toLowerCase();
    if (earlier !== undefined || seen.has(key))
      return { c, run: false, note: `not run again: it was made in step ${earlier ?? s.figures.steps + 1}` };
    seen.add(key);
    if (++runnable > Math.max(0, room))
      return { c, run: false, note: "not run: over the per-step cap or the tool-call budget" };
    return { c, run: true, note: "" };
  });
  const toRun = batch.flatMap((p) => (p.run && p.c.ok ? [p.c.call] : []));
  const observations = toRun.length ? await steps.execute(toRun) : [];
  if (!toRun.length) steps.lastObserved = [];
  let next = 0;
  return batch
    .map((p) => {
      const o = p.run ? observations[next++] : undefined;
      return toolResponse(
        p.c.name,
        p.c.arguments,
        o && p.c.ok ? nativeObservation(o, p.c.call, s.ctx.evidence) : p.note,
      );
    })
    .join("\n");
}
