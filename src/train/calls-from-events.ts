/**
 * The recorded model calls of a run's event log: its `llm-call` events (written when the run
 * records its calls, see llm/call-recorder.ts) expanded back into {@link RecordedCall}s.
 *
 * - A compact event names the messages it shares with an earlier call (`prefix`), an assistant
 *   turn repeating a call's completion (`completionOf`) and a repeated response schema
 *   (`schemaOf`); each is resolved against the calls decoded before it.
 * - Usage comes from the call's `llm-end`; `startedAt` from the event, `endedAt` is its time.
 * - A resumed run replays its journal from the start, recording every call again: only the
 *   calls of the last attempt (after the last `run-start` or `run-resume`) are read, which is
 *   the trajectory that produced the run's result.
 *
 * A reference to a call that is not there, or a call that does not make a valid recorded call,
 * is an `INPUT_INVALID` error naming the call.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent, EventOf } from "../core/events.ts";
import type { CallUsage } from "../core/usage.ts";
import { parseInput } from "./parse-input.ts";
import { type RecordedCall, type RecordedMessage, recordedCallSchema } from "./recorded-call.ts";
import { decodeEventTokens } from "./tokens/call-tokens.ts";

/** The events of a run's last attempt (from its last `run-start` or `run-resume`), by `seq`. */
export function lastAttempt(events: readonly DossierEvent[]): DossierEvent[] {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  let from = 0;
  sorted.forEach((e, i) => {
    if (e.type === "run-start" || e.type === "run-resume") from = i;
  });
  return sorted.slice(from);
}

/** True when the log holds recorded calls. */
export function hasRecordedCalls(events: readonly DossierEvent[]): boolean {
  return events.some((e) => e.type === "llm-call");
}

/** The recorded calls of a run's event log, in the order they were recorded (see the module comment). */
export function recordedCallsFromEvents(events: readonly DossierEvent[]): RecordedCall[] {
  const attempt = lastAttempt(events);
  const usage = new Map<string, CallUsage>();
  for (const e of attempt) {
    if (e.type === "llm-end")
      usage.set(e.callId, { inputTokens: e.inputTokens, outputTokens: e.outputTokens, costUsd: e.costUsd });
  }
  const decoded = new Map<string, RecordedCall>();
  const calls: RecordedCall[] = [];
  for (const e of attempt) {
    if (e.type !== "llm-call") continue;
    const call = decodeCall(e, decoded, usage.get(e.callId));
    decoded.set(call.callId, call);
    calls.push(call);
  }
  return calls;
}

function decodeCall(
  e: EventOf<"llm-call">,
  decoded: ReadonlyMap<string, RecordedCall>,
  usage: CallUsage | undefined,
): RecordedCall {
  const earlier = (callId: string, what: string): RecordedCall => {
    const call = decoded.get(callId);
    if (!call)
      throw new DossierError(
        "INPUT_INVALID",
        `run ${e.runId}: call ${e.callId} names the ${what} of call ${callId}, which was not recorded before it`,
      );
    return call;
  };
  const messages: RecordedMessage[] = e.prefix
    ? earlier(e.prefix.callId, "messages").messages.slice(0, e.prefix.count)
    : [];
  for (const m of e.messages) {
    if (m.completionOf !== undefined)
      messages.push({ role: "assistant", content: earlier(m.completionOf, "completion").completion });
    else messages.push({ role: m.role, content: m.content ?? "" } as RecordedMessage);
  }
  const responseSchema =
    e.responseSchema ?? (e.schemaOf === undefined ? undefined : earlier(e.schemaOf, "schema").responseSchema);
  const tokens = decodeEventTokens(e, (callId) => earlier(callId, "token ids").tokens);
  return parseInput(
    recordedCallSchema,
    {
      runId: e.runId,
      callId: e.callId,
      role: e.role,
      ...(e.scope ? { scope: e.scope } : {}),
      step: e.step,
      ...(e.toolCallId ? { toolCallId: e.toolCallId } : {}),
      model: e.model,
      messages,
      ...(responseSchema ? { responseSchema } : {}),
      sampling: e.sampling,
      completion: e.completion,
      formatErrors: e.formatErrors,
      usage: usage ?? { inputTokens: null, outputTokens: null, costUsd: null },
      ...(e.finishReason ? { finishReason: e.finishReason } : {}),
      ...(e.error ? { error: { code: e.error.code, message: e.error.message } } : {}),
      startedAt: e.startedAt,
      endedAt: e.ts < e.startedAt ? e.startedAt : e.ts,
      ...(tokens ? { tokens } : {}),
    },
    `run ${e.runId}, call ${e.callId}`,
  );
}
