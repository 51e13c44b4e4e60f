/**
 * One atomic sample: a teacher's recorded request sent again to the policy model with a sampling
 * seed of its own, recorded exactly as a rollout's calls are (the call recorder's `llm-call`,
 * decoded back into a {@link RecordedCall}), with the decoder's verdict as its format error.
 *
 * The request is sent as recorded — its system prompt (for the JSON protocol, with the schema
 * instruction structured output had added), its messages, its response schema (native
 * structured output) and output cap — so each of the G samples answers the teacher's state as
 * the teacher saw it. Temperature and top-p are the teacher's unless given. A call that fails
 * (the endpoint unreachable after the client's retries) throws: it is not a sample.
 */

import type { DossierEvent, EventInput } from "../../core/events.ts";
import { CallRecorder } from "../../llm/call-recorder.ts";
import { type ChatMessage, LlmClient } from "../../llm/client.ts";
import type { ModelRegistry } from "../../llm/registry.ts";
import { recordedCallsFromEvents } from "../calls-from-events.ts";
import type { RecordedCall } from "../recorded-call.ts";

/** One sampling request. */
export interface SampleRequest {
  /** The teacher's request (its prompt only). */
  request: RecordedCall;
  /** The sample's run id (its recorded call's). */
  runId: string;
  seed: number;
  temperature?: number;
  topP?: number;
  /** Judges the reply: its format error, or null. */
  inspect: (reply: string) => string | null;
}

/** Sends a teacher's request once more and records the call. */
export type AtomicSampler = (input: SampleRequest) => Promise<RecordedCall>;

/** An {@link AtomicSampler} over a model registry (the policy: the model of the request's role). */
export function llmSampler(registry: ModelRegistry, options: { signal?: AbortSignal } = {}): AtomicSampler {
  return async ({ request, runId, seed, temperature, topP, inspect }) => {
    const events: DossierEvent[] = [];
    const emit = (event: EventInput) => {
      events.push({ ...event, runId, seq: events.length + 1, ts: new Date().toISOString() } as DossierEvent);
    };
    const client = new LlmClient({
      registry,
      emit,
      recorder: new CallRecorder({ emit }),
      seed,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const system = request.messages[0]?.role === "system" ? request.messages[0].content : undefined;
    const messages: ChatMessage[] = request.messages
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => ({ role: m.role as ChatMessage["role"], content: m.content }));
    const sampling = request.sampling;
    const t = temperature ?? sampling.temperature;
    const p = topP ?? sampling.topP;
    await client.call(
      {
        role: request.role,
        ...(system === undefined ? {} : { system }),
        messages,
        ...(request.responseSchema ? { responseSchema: request.responseSchema } : {}),
        ...(t === undefined ? {} : { temperature: t }),
        ...(p === undefined ? {} : { topP: p }),
        ...(sampling.maxOutputTokens === undefined ? {} : { maxOutputTokens: sampling.maxOutputTokens }),
      },
      inspect,
    );
    const call = recordedCallsFromEvents(events).at(-1)!;
    return { ...call, ...(request.scope === undefined ? {} : { scope: request.scope }) };
  };
}
