/**
 * The LLM client strategies use: every model call goes through it, so every call is budgeted,
 * retried with backoff that honours Retry-After, cancellable, journaled for resume, priced,
 * and recorded as llm-start / llm-end events. Every request the provider received is counted
 * in the usage and the budget: a failed request (retried, or the last of a failed call) as one
 * call at what core/usage.ts `failedRequestUsage` says, on its llm-retry or llm-end event.
 */

import { createHash } from "node:crypto";
import type { LlmReservation } from "../core/budget.ts";
import { type Clock, cancelledError, systemClock, throwIfAborted } from "../core/clock.ts";
import type { DossierError } from "../core/errors.ts";
import { createSequentialIds, type IdGenerator } from "../core/ids.ts";
import { StepKeyer } from "../core/journal.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from "../core/retry.ts";
import { currentToolCall } from "../core/tool-context.ts";
import { type CallUsage, callUsageSchema, costOf, failedRequestUsage } from "../core/usage.ts";
import { reportingSlotWaits } from "../tools/slot-waits.ts";
import type { CallRecord } from "./call-recorder.ts";
import { classifyLlmError, failedRequestOf, toLlmError } from "./errors.ts";
import type { Role } from "./model-spec.ts";
import { pricePerToken } from "./prices.ts";
import { callProvider, type ProviderCallOutcome } from "./provider-call.ts";
import type { ResolvedModel } from "./registry.ts";
import { withRoleSampling } from "./role-sampling.ts";
import { type CallTokens, type ServerTokens, tokensOfResponse } from "./token-capture.ts";
import { estimatePromptTokens } from "./token-estimate.ts";

export type {
  AnswerInspector,
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  LlmClientOptions,
} from "./client-types.ts";

import type {
  AnswerInspector,
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  LlmClientOptions,
} from "./client-types.ts";

interface JournalValue {
  text: string;
  usage: CallUsage;
  finishReason: string;
  /** The server's ids, when tokens were captured (a replayed call records them again). */
  tokens?: ServerTokens;
}

/** Makes model calls on behalf of a run. */
export class LlmClient {
  readonly options: LlmClientOptions;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #keys = new StepKeyer();
  readonly #policy: RetryPolicy;

  constructor(options: LlmClientOptions) {
    this.options = options;
    this.#clock = options.clock ?? systemClock;
    this.#ids = options.ids ?? createSequentialIds();
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  }

  /** The model a role resolves to. */
  resolve(role: Role): ResolvedModel {
    const resolved = this.options.registry.forRole(role);
    // Without guided decoding (token capture of a native protocol) structured answers are asked in the prompt.
    return this.options.tokens?.guidedDecoding === false
      ? { ...resolved, structuredOutput: "prompt" }
      : resolved;
  }

  /** Makes one model call (with retries). */
  generate(request: GenerateRequest): Promise<GenerateResult> {
    return this.call(request).then((r) => r.result);
  }

  /**
   * Makes one model call; `inspect` may judge the answer before llm-end is recorded. Returns
   * the result and the inspector's verdict.
   */
  async call(
    asked: GenerateRequest,
    inspect?: AnswerInspector,
  ): Promise<{ result: GenerateResult; formatError: string | null }> {
    const { signal, emit, budget, journal } = this.options;
    const request = withRoleSampling(asked, this.options.sampling);
    throwIfAborted(signal);
    const resolved = this.resolve(request.role);
    const messages: ChatMessage[] = request.messages ?? [{ role: "user", content: request.prompt ?? "" }];
    const key = this.#keys.next(
      "llm",
      hashRequest(resolved.name, request.role, request.system, messages, request.temperature),
    );
    const callId = this.#ids.next("L");
    const base = { callId, role: request.role, model: resolved.name, key };

    const stored = journal?.get(key);
    if (stored?.kind === "llm") {
      const value = stored.value as JournalValue;
      const usage = callUsageSchema.parse(value.usage);
      budget?.recordLlm(
        usage,
        estimatePromptTokens([request.system ?? "", ...messages.map((m) => m.content)]),
      );
      this.options.onUsage?.(usage, resolved.name);
      const formatError = inspect?.(value.text) ?? null;
      const replayedAt = this.#clock.now();
      emit?.({
        type: "llm-end",
        ...base,
        ok: true,
        replayed: true,
        ...usage,
        latencyMs: 0,
        formatErrors: formatError ? 1 : 0,
        retries: 0,
      });
      this.#record(request, messages, base, replayedAt, {
        completion: value.text,
        formatError,
        finishReason: value.finishReason,
        replayed: true,
        maxOutputTokens: request.maxOutputTokens ?? this.options.defaultMaxOutputTokens ?? 4096,
        ...this.#tokens(request, value.tokens),
      });
      const result = {
        text: value.text,
        usage,
        model: resolved.name,
        callId,
        key,
        replayed: true,
        finishReason: value.finishReason,
      };
      return { result, formatError };
    }

    const estimatedInputTokens = estimatePromptTokens([
      request.system ?? "",
      ...messages.map((m) => m.content),
    ]);
    const wanted = request.maxOutputTokens ?? this.options.defaultMaxOutputTokens ?? 4096;
    const reservation: LlmReservation | undefined = budget?.reserveLlm({
      estimatedInputTokens,
      maxOutputTokens: wanted,
      pricePerToken: pricePerToken(resolved.price),
    });
    const maxOutputTokens = reservation?.maxOutputTokens ?? wanted;
    const started = this.#clock.now();
    let retries = 0;
    const parentCallId = currentToolCall();
    emit?.({
      type: "llm-start",
      ...base,
      attempt: 1,
      estimatedInputTokens,
      maxOutputTokens,
      ...(parentCallId ? { parentCallId } : {}),
    });
    // The last failed request the provider received, until it is counted as a call of its own.
    let failed: CallUsage | null = null;
    const noteFailed = (error: unknown): never => {
      const how = failedRequestOf(error);
      failed = how && failedRequestUsage(how, { estimatedInputTokens, maxOutputTokens }, resolved.price);
      throw error;
    };
    const countFailed = (): { request?: CallUsage } => {
      const request = failed;
      failed = null;
      if (!request) return {};
      budget?.recordLlm(request, 0);
      this.options.onUsage?.(request, resolved.name);
      return { request };
    };

    // Waits for a slot of the provider's shared limiter (runtime/limited-models.ts), every attempt's.
    let queueMs = 0;
    const queued = (): { queueMs?: number } => (queueMs > 0 ? { queueMs } : {});
    let outcome: ProviderCallOutcome;
    try {
      outcome = await withRetry(
        () =>
          reportingSlotWaits(
            (_limiter, waitMs) => {
              queueMs += waitMs;
            },
            () =>
              callProvider({
                telemetry: this.options.telemetry?.({ role: request.role, callId }),
                resolved,
                ...(request.system ? { system: request.system } : {}),
                messages,
                maxOutputTokens,
                ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
                ...(request.topP === undefined ? {} : { topP: request.topP }),
                ...(request.responseSchema ? { responseSchema: request.responseSchema } : {}),
                ...(request.sharedPrefix === undefined ? {} : { sharedPrefix: request.sharedPrefix }),
                ...(this.options.seed === undefined ? {} : { seed: this.options.seed }),
                ...(this.options.tokens ? { captureTokens: true } : {}),
                timeoutMs: this.options.timeoutMs ?? 600_000,
                ...(signal ? { signal } : {}),
              }),
          ).catch(noteFailed),
        {
          policy: this.#policy,
          clock: this.#clock,
          signal,
          random: this.options.random,
          classify: (error) => classifyLlmError(error, this.#clock.now()),
          onRetry: ({ attempt, delayMs, error }) => {
            retries = attempt;
            const typed = toLlmError(error, { model: resolved.name, role: request.role }, this.#clock.now());
            emit?.({
              type: "llm-retry",
              ...base,
              attempt,
              delayMs,
              error: errorShape(typed),
              ...countFailed(),
            });
          },
        },
      );
    } catch (error) {
      if (reservation) budget?.release(reservation);
      const typed = signal?.aborted
        ? cancelledError(signal)
        : toLlmError(error, { model: resolved.name, role: request.role }, this.#clock.now());
      emit?.({
        type: "llm-end",
        ...base,
        ok: false,
        replayed: false,
        inputTokens: null,
        outputTokens: null,
        costUsd: null,
        latencyMs: this.#clock.now() - started,
        formatErrors: 0,
        retries,
        ...queued(),
        error: errorShape(typed),
        ...countFailed(),
      });
      this.#record(request, messages, base, started, {
        completion: "",
        formatError: null,
        replayed: false,
        maxOutputTokens,
        error: errorShape(typed),
        ...this.#tokens(request, undefined),
      });
      throw typed;
    }

    const u = outcome.usage;
    const inputTokens = u.inputTokens ?? null;
    const outputTokens = u.outputTokens ?? null;
    const usage: CallUsage = {
      inputTokens,
      outputTokens,
      costUsd: costOf(
        { inputTokens, outputTokens, cachedInputTokens: u.inputTokenDetails?.cacheReadTokens ?? null },
        resolved.price,
      ),
    };
    if (reservation) budget?.settleLlm(reservation, usage);
    this.options.onUsage?.(usage, resolved.name);
    const { text, finishReason } = outcome;
    const tokens = this.options.tokens ? tokensOfResponse(outcome.body) : undefined;
    journal?.put(key, {
      kind: "llm",
      value: { text, usage, finishReason, ...(tokens ? { tokens } : {}) } satisfies JournalValue,
    });
    const formatError = inspect?.(text) ?? null;
    emit?.({
      type: "llm-end",
      ...base,
      ok: true,
      replayed: false,
      ...usage,
      latencyMs: this.#clock.now() - started,
      formatErrors: formatError ? 1 : 0,
      retries,
      ...queued(),
    });
    this.#record(request, messages, base, started, {
      completion: text,
      formatError,
      finishReason,
      replayed: false,
      maxOutputTokens,
      ...this.#tokens(request, tokens),
    });
    return {
      result: { text, usage, model: resolved.name, callId, key, replayed: false, finishReason },
      formatError,
    };
  }

  /** The tokens of a call to record when tokens are captured: the server's ids and whether decoding was constrained. */
  #tokens(request: GenerateRequest, ids: ServerTokens | undefined): { tokens?: CallTokens } {
    if (!this.options.tokens) return {};
    const none = { promptIds: null, completionIds: null, logprobs: null };
    return { tokens: { constrained: request.responseSchema !== undefined, ...(ids ?? none) } };
  }

  /** Hands a finished call to the recorder, if any; a recording failure never fails the call. */
  #record(
    request: GenerateRequest,
    messages: readonly ChatMessage[],
    base: { callId: string; role: string; model: string },
    startedMs: number,
    outcome: {
      completion: string;
      formatError: string | null;
      finishReason?: string;
      replayed: boolean;
      maxOutputTokens?: number;
      error?: CallRecord["error"];
      tokens?: CallTokens;
    },
  ): void {
    const recorder = this.options.recorder;
    if (!recorder) return;
    const maxOutputTokens = outcome.maxOutputTokens;
    const toolCallId = currentToolCall();
    try {
      recorder.record({
        callId: base.callId,
        role: base.role,
        model: base.model,
        ...(request.system ? { system: request.system } : {}),
        messages,
        ...(request.responseSchema
          ? { responseSchema: request.responseSchema as Record<string, unknown> }
          : {}),
        sampling: {
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          ...(request.topP === undefined ? {} : { topP: request.topP }),
          ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
          ...(this.options.seed === undefined ? {} : { seed: this.options.seed }),
        },
        completion: outcome.completion,
        formatErrors: outcome.formatError ? [outcome.formatError] : [],
        ...(outcome.finishReason ? { finishReason: outcome.finishReason } : {}),
        replayed: outcome.replayed,
        ...(toolCallId ? { toolCallId } : {}),
        ...(outcome.tokens ? { tokens: outcome.tokens } : {}),
        startedAt: new Date(startedMs).toISOString(),
        ...(outcome.error ? { error: outcome.error } : {}),
      });
    } catch (error) {
      this.options.emit?.({
        type: "warning",
        code: "CALL_NOT_RECORDED",
        message: `model call ${base.callId} could not be recorded: ${(error as Error).message}`.slice(0, 500),
      });
    }
  }
}

function hashRequest(
  model: string,
  role: string,
  system: string | undefined,
  messages: ChatMessage[],
  temperature?: number,
): string {
  return createHash("sha256")
    .update(JSON.stringify({ model, role, system: system ?? "", messages, temperature: temperature ?? null }))
    .digest("hex")
    .slice(0, 24);
}

function errorShape(error: DossierError): { code: string; message: string; retryable: boolean } {
  return { code: error.code, message: error.message, retryable: error.retryable };
}
