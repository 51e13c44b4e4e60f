/**
 * Recording model calls for training (`recordCalls`): per call, exactly what the model saw and
 * said — the system prompt and messages, the response schema of a native structured call, the
 * sampling parameters, the raw completion before any parsing, the format errors raised on it —
 * and the step of the agent it served. Each call becomes one `llm-call` event after its
 * `llm-end`, stored compactly:
 *
 * - the messages shared with the previous call of the same scope and role are not repeated:
 *   `prefix: {callId, count}` names the first `count` messages of that call's list (the system
 *   prompt counts as the first message), and only the rest is stored;
 * - an assistant turn that repeats that call's completion is stored as `{completionOf}`;
 * - a response schema equal to that call's is stored as `schemaOf`;
 * - token ids (runs with `recordTokens`, token-capture.ts) that begin with that call's prompt and
 *   completion ids are stored as `tokens.prefix: {callId, count}` (the first `count` ids of that
 *   call's prompt ids followed by its completion ids) and the rest of the prompt's ids.
 *
 * Steps are counted per scope from 1; a call whose previous call of the same scope and role
 * raised a format error is a repair round of that call's step (a structured re-ask, or a
 * re-sample after a malformed answer) and shares its step.
 *
 * Nothing about the endpoint is known here — no URL, header or key reaches a recorder — so no
 * secret can be recorded. The recorder only emits events: the run's calls, their order and
 * their results are the same with and without it.
 */

import type { EventInput } from "../core/events.ts";
import type { ChatMessage } from "./client.ts";
import type { CallTokens } from "./token-capture.ts";

/** Sampling parameters of a call, as sent (absent: the provider's default). */
export interface RecordedSampling {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  seed?: number;
}

/** One finished model call, as the client hands it to the recorder. */
export interface CallRecord {
  callId: string;
  role: string;
  /** `provider:model`. */
  model: string;
  system?: string;
  messages: readonly ChatMessage[];
  responseSchema?: Record<string, unknown>;
  sampling: RecordedSampling;
  /** The raw completion ("" when the call failed). */
  completion: string;
  formatErrors: readonly string[];
  finishReason?: string;
  /** True when the answer came from the run's journal (a resumed run). */
  replayed: boolean;
  /** The tool call the call served, when it ran inside one (engine work, not an agent step). */
  toolCallId?: string;
  startedAt: string;
  error?: { code: string; message: string; retryable?: boolean };
  /** The server's token ids (runs with `recordTokens`). */
  tokens?: CallTokens;
}

/** What the recorder needs from the run. */
export interface CallRecorderOptions {
  /** Appends an event to the run's log. */
  emit: (event: EventInput) => unknown;
  /** The scope calls run in (the agent), when the run tracks one. */
  scope?: () => string | undefined;
}

type Message = { role: "system" | "user" | "assistant" | "tool"; content: string };

interface Chain {
  callId: string;
  messages: Message[];
  completion: string;
  schema: string | undefined;
  step: number;
  formatError: boolean;
  /** The call's prompt ids then completion ids, when it has both. */
  ids: number[] | null;
}

/** Turns finished model calls into compact `llm-call` events (see the module comment). */
export class CallRecorder {
  readonly #options: CallRecorderOptions;
  /** The last call per scope and role. */
  readonly #last = new Map<string, Chain>();
  /** Steps taken per scope. */
  readonly #steps = new Map<string, number>();

  constructor(options: CallRecorderOptions) {
    this.#options = options;
  }

  /** Records one finished call. */
  record(call: CallRecord): void {
    const scope = this.#options.scope?.() ?? "";
    const key = `${scope}\u0000${call.role}`;
    const previous = this.#last.get(key);
    const messages: Message[] = [
      ...(call.system ? [{ role: "system" as const, content: call.system }] : []),
      ...call.messages.map((m) => ({ role: m.role, content: m.content })),
    ];
    let step: number;
    if (call.toolCallId) step = Math.max(1, this.#steps.get(scope) ?? 0);
    else if (previous?.formatError) step = previous.step;
    else {
      step = (this.#steps.get(scope) ?? 0) + 1;
      this.#steps.set(scope, step);
    }
    const shared = previous ? sharedPrefix(previous.messages, messages) : 0;
    const rest = messages
      .slice(shared)
      .map((m) =>
        previous && m.role === "assistant" && m.content === previous.completion && m.content !== ""
          ? { role: "assistant" as const, completionOf: previous.callId }
          : m,
      );
    const schema = call.responseSchema ? JSON.stringify(call.responseSchema) : undefined;
    const sameSchema = schema !== undefined && previous?.schema === schema;
    this.#last.set(key, {
      callId: call.callId,
      messages,
      completion: call.completion,
      schema,
      step,
      formatError: call.formatErrors.length > 0,
      ids:
        call.tokens?.promptIds && call.tokens.completionIds
          ? [...call.tokens.promptIds, ...call.tokens.completionIds]
          : null,
    });
    this.#options.emit({
      type: "llm-call",
      callId: call.callId,
      role: call.role,
      model: call.model,
      step,
      ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
      ...(previous && shared > 0 ? { prefix: { callId: previous.callId, count: shared } } : {}),
      messages: rest,
      ...(call.responseSchema && !sameSchema ? { responseSchema: call.responseSchema } : {}),
      ...(sameSchema ? { schemaOf: previous!.callId } : {}),
      sampling: { ...call.sampling },
      completion: call.completion,
      formatErrors: [...call.formatErrors],
      ...(call.finishReason ? { finishReason: call.finishReason } : {}),
      replayed: call.replayed,
      startedAt: call.startedAt,
      ...(call.error ? { error: call.error } : {}),
      ...(call.tokens ? { tokens: compactTokens(call.tokens, previous) } : {}),
    });
  }
}

/** A call's tokens with the ids it shares with the previous call's prompt and completion named, not repeated. */
function compactTokens(tokens: CallTokens, previous: Chain | undefined) {
  const prompt = tokens.promptIds;
  let shared = 0;
  if (prompt && previous?.ids)
    while (shared < prompt.length && shared < previous.ids.length && prompt[shared] === previous.ids[shared])
      shared++;
  return {
    constrained: tokens.constrained,
    ...(shared > 0 ? { prefix: { callId: previous!.callId, count: shared } } : {}),
    promptIds: prompt ? prompt.slice(shared) : null,
    completionIds: tokens.completionIds,
    logprobs: tokens.logprobs,
  };
}

function sharedPrefix(a: readonly Message[], b: readonly Message[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n]!.role === b[n]!.role && a[n]!.content === b[n]!.content) n++;
  return n;
}
