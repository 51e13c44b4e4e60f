/**
 * One attempt at a model call through the AI SDK: the per-attempt time limit, the run's abort
 * signal, and — when a response schema is given — the provider's native structured output.
 * Retries, budgets and events stay with the client.
 */

import type { JSONSchema7, LanguageModelUsage, TelemetryOptions } from "ai";
import { CallTimeout } from "./errors.ts";
import { promptWithCache } from "./prompt-cache.ts";
import type { ResolvedModel } from "./registry.ts";
import { nativeJsonOutput, nativeProviderOptions } from "./structured-mode.ts";
import { mergeProviderOptions, tokenProviderOptions } from "./token-capture.ts";

/** What one attempt sends. */
export interface ProviderCallInput {
  resolved: ResolvedModel;
  system?: string;
  messages: { role: "user" | "assistant"; content: string }[];
  maxOutputTokens: number;
  temperature?: number;
  /** Nucleus sampling (top-p). */
  topP?: number;
  /** Sampling seed. */
  seed?: number;
  /** Constrains the answer to this JSON schema with the provider's schema mode. */
  responseSchema?: JSONSchema7;
  /** The prompt's part other calls of the role repeat (cache breakpoints: prompt-cache.ts). */
  sharedPrefix?: string;
  timeoutMs: number;
  /** The run's signal. */
  signal?: AbortSignal;
  /** The AI SDK telemetry of this call (the run's OpenTelemetry spans), when the run has any. */
  telemetry?: TelemetryOptions | undefined;
  /** Asks the server for token ids and log-probs, and returns the response body (token-capture.ts). */
  captureTokens?: boolean;
}

/** What one attempt returns. */
export interface ProviderCallOutcome {
  text: string;
  usage: LanguageModelUsage;
  finishReason: string;
  /** The raw response body, when tokens were asked for. */
  body?: unknown;
}

/** Makes one attempt; throws the provider's error, or a {@link CallTimeout} when time ran out. */
export async function callProvider(input: ProviderCallInput): Promise<ProviderCallOutcome> {
  // The AI SDK loads with the first model call, not with Dossier.
  const { generateText } = await import("ai");
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new CallTimeout(input.timeoutMs)), input.timeoutMs);
  const signals = [timeout.signal, ...(input.signal ? [input.signal] : [])];
  const tokens = input.captureTokens ? tokenProviderOptions(input.resolved.spec.provider) : null;
  const settings = {
    model: input.resolved.model,
    ...promptWithCache(input.resolved.spec.provider, input.system, input.messages, input.sharedPrefix),
    maxOutputTokens: input.maxOutputTokens,
    ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
    ...(input.topP === undefined ? {} : { topP: input.topP }),
    ...(input.seed === undefined ? {} : { seed: input.seed }),
    maxRetries: 0,
    abortSignal: AbortSignal.any(signals),
    ...(input.telemetry ? { telemetry: input.telemetry } : {}),
    ...(tokens ? { include: { responseBody: true } } : {}),
  };
  try {
    if (!input.responseSchema) {
      const r = await generateText({ ...settings, ...(tokens ? { providerOptions: tokens } : {}) });
      return {
        text: r.text,
        usage: r.usage,
        finishReason: String(r.finishReason),
        ...(tokens ? { body: r.response.body } : {}),
      };
    }
    const r = await generateText({
      ...settings,
      output: nativeJsonOutput(input.responseSchema),
      providerOptions: mergeProviderOptions(nativeProviderOptions(input.resolved.spec.provider), tokens),
    });
    // Providers that answer through a tool (Anthropic's JSON tool) deliver the JSON as `output`.
    let text = r.text;
    try {
      text = r.output || r.text;
    } catch {
      // No output was resolved (e.g. an empty answer cut at the length limit): keep the text.
    }
    return {
      text,
      usage: r.usage,
      finishReason: String(r.finishReason),
      ...(tokens ? { body: r.response.body } : {}),
    };
  } catch (error) {
    if (timeout.signal.aborted && !input.signal?.aborted) throw timeout.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
