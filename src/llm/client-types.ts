/**
 * The LLM client's boundary types: a chat message, a generate request and its result, the
 * client's options and the answer inspector. The client itself is in client.ts.
 */

import type { JSONSchema7, TelemetryOptions } from "ai";
import type { BudgetLedger } from "../core/budget.ts";
import type { Clock } from "../core/clock.ts";
import type { EventSink } from "../core/events.ts";
import type { IdGenerator } from "../core/ids.ts";
import type { StepJournal } from "../core/journal.ts";
import type { RetryPolicy } from "../core/retry.ts";
import type { CallUsage } from "../core/usage.ts";
import type { CallRecorder } from "./call-recorder.ts";
import type { Role } from "./model-spec.ts";
import type { ModelRegistry } from "./registry.ts";
import type { RoleSampling } from "./role-sampling.ts";
import type { TokenCapture } from "./token-capture.ts";

/** A chat message of a prompt. */
export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

/** One model call. */
export interface GenerateRequest {
  role: Role;
  /** System instructions. */
  system?: string;
  /** A single user prompt (or use `messages`). */
  prompt?: string;
  messages?: ChatMessage[];
  /** Output cap; lowered to fit the budget. Default from the client options. */
  maxOutputTokens?: number;
  temperature?: number;
  /** Nucleus sampling (top-p); the provider's default when absent. */
  topP?: number;
  /**
   * Asks the provider to constrain the answer to this JSON schema (native structured output).
   * The answer text is returned unparsed; structured.ts validates it.
   */
  responseSchema?: JSONSchema7;
  /**
   * The leading part of the prompt that other calls of this role repeat: a prefix of the first
   * user message, or "" when only the instructions are shared. Providers that cache a prefix
   * only up to explicit breakpoints (Anthropic) get one after the instructions and one after
   * this prefix (see prompt-cache.ts); it changes nothing else.
   */
  sharedPrefix?: string;
}

/** Result of one model call. */
export interface GenerateResult {
  text: string;
  usage: CallUsage;
  /** `provider:model`. */
  model: string;
  callId: string;
  /** Journal key of the call. */
  key: string;
  /** True when the result came from the journal of an earlier attempt of this run. */
  replayed: boolean;
  finishReason: string;
}

/** Options of {@link LlmClient}. */
export interface LlmClientOptions {
  registry: ModelRegistry;
  budget?: BudgetLedger;
  emit?: EventSink;
  journal?: StepJournal;
  clock?: Clock;
  signal?: AbortSignal;
  /** Retry policy for provider errors (rate limits, 5xx, timeouts). */
  retry?: Partial<RetryPolicy>;
  /** Per-attempt time limit. Default 10 minutes. */
  timeoutMs?: number;
  /** Output cap when a request gives none. Default 4096. */
  defaultMaxOutputTokens?: number;
  /** Randomness for retry jitter. */
  random?: () => number;
  /** Ids for calls (`L1`, `L2`, …). */
  ids?: IdGenerator;
  /** Receives the usage of every completed call (also replayed ones). */
  onUsage?: (usage: CallUsage, model: string) => void;
  /** Records every call for training (see call-recorder.ts); calls are made the same without it. */
  recorder?: CallRecorder;
  /** The sampling seed sent with every call (rollouts); the provider's default when absent. */
  seed?: number;
  /**
   * Sampling per role (a strategy's stated settings): fills the temperature, top-p and output
   * cap a request leaves unset.
   */
  sampling?: RoleSampling;
  /**
   * The AI SDK telemetry of a call (OpenTelemetry spans; see telemetry/run-trace.ts), asked
   * for each attempt that reaches the provider; none when it returns undefined.
   */
  telemetry?: (call: { role: string; callId: string }) => TelemetryOptions | undefined;
  /**
   * Token-level recording (runs with `recordTokens`; see token-capture.ts): every call asks the
   * server for its token ids and log-probs and hands them to the recorder.
   */
  tokens?: TokenCapture;
}

/**
 * Inspects a raw answer before the call is recorded; returns a format error message or null.
 * Used by structured output to count format errors on the call's llm-end event.
 */
export type AnswerInspector = (text: string) => string | null;
