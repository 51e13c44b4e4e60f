/**
 * Types of the in-process fake OpenAI-compatible server used by tests.
 */

import type { FakeTokens } from "./token-ids.ts";

/** Token usage a scripted reply reports, in the OpenAI wire format. */
export interface ReplyUsage {
  /** Tokens in the prompt. */
  prompt_tokens: number;
  /** Tokens in the completion. */
  completion_tokens: number;
}

/** Fields every scripted reply may carry. */
export interface ReplyBase {
  /** Delay before this response, in milliseconds; replaces the server-wide `latencyMs`. */
  latencyMs?: number;
}

/**
 * An assistant text answer. Streamed as several `chat.completion.chunk` deltas when the
 * request has `stream: true`, otherwise a single `chat.completion` object.
 */
export interface TextReply extends ReplyBase {
  /** Discriminator. */
  kind: "text";
  /** The assistant's text. */
  text: string;
  /**
   * Usage to report. `null` omits usage from the response entirely; `undefined` reports a
   * deterministic estimate (see {@link countPromptTokens} and {@link countTextTokens}).
   */
  usage?: ReplyUsage | null;
  /** The `finish_reason` to report; default `"stop"`. */
  finishReason?: string;
}

/** One tool call of a {@link ToolCallsReply}. */
export interface ScriptedToolCall {
  /** The function name. */
  name: string;
  /** The arguments: an object (serialised as JSON) or a raw string sent verbatim. */
  arguments: object | string;
  /** The tool call id; default `call_fake_<request number>_<index>`. */
  id?: string;
}

/** An assistant message with `tool_calls` and finish reason `"tool_calls"`. */
export interface ToolCallsReply extends ReplyBase {
  /** Discriminator. */
  kind: "tool-calls";
  /** The calls, in order. */
  calls: ScriptedToolCall[];
  /** Optional text content sent before the calls. */
  text?: string;
  /** Usage to report; same semantics as {@link TextReply.usage}. */
  usage?: ReplyUsage | null;
}

/** An HTTP error answer. */
export interface ErrorReply extends ReplyBase {
  /** Discriminator. */
  kind: "error";
  /** HTTP status, e.g. 429 or 500. */
  status: number;
  /** JSON body; default an OpenAI-style `{ error: { message, type, code } }`. */
  body?: unknown;
  /** Extra response headers, e.g. `{ "retry-after": "1" }`. */
  headers?: Record<string, string>;
}

/** HTTP 200 with `content-type: application/json` and a body that is not valid JSON. */
export interface MalformedReply extends ReplyBase {
  /** Discriminator. */
  kind: "malformed";
}

/**
 * For streaming requests: some SSE chunks of `text`, then the socket is destroyed without
 * a finish reason and without `[DONE]`. For non-streaming requests: half of a JSON body,
 * then the socket is destroyed.
 */
export interface TruncatedStreamReply extends ReplyBase {
  /** Discriminator. */
  kind: "truncated-stream";
  /** The text whose first part is sent before the connection drops. */
  text: string;
}

/** Escape hatch: an arbitrary HTTP response. */
export interface RawReply extends ReplyBase {
  /** Discriminator. */
  kind: "raw";
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers?: Record<string, string>;
  /** Response body, sent verbatim. */
  body: string;
}

/** A scripted answer to one chat-completions request. */
export type Reply =
  | TextReply
  | ToolCallsReply
  | ErrorReply
  | MalformedReply
  | TruncatedStreamReply
  | RawReply;

/** One request as the fake server received it. */
export interface RecordedRequest {
  /** HTTP method, e.g. `"POST"`. */
  method: string;
  /** URL path without query, e.g. `"/v1/chat/completions"`. */
  path: string;
  /** Request headers, lower-cased names; repeated headers joined with `", "`. */
  headers: Record<string, string>;
  /** The body parsed as JSON, or the raw string when it is not JSON (`""` when empty). */
  body: unknown;
  /** `Date.now()` when the request was fully read. */
  receivedAt: number;
}

/** Computes the reply to a chat-completions request dynamically. */
export type ReplyHandler = (request: RecordedRequest) => Reply | Promise<Reply>;

/** Options of {@link startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  /** Initial FIFO script, consumed one reply per chat-completions request. */
  replies?: Reply[];
  /** When given, answers every chat-completions request instead of the FIFO script. */
  handler?: ReplyHandler;
  /** Delay before each response, in milliseconds; default 0. */
  latencyMs?: number;
  /** Model name echoed in responses; default the request's `model`. */
  model?: string;
  /** Length of the vectors served by `/v1/embeddings`; default 8. */
  embeddingDimensions?: number;
  /**
   * Answers like vLLM or SGLang asked for token ids and log-probs (token-ids.ts): plain text
   * replies carry them when the request asks.
   */
  tokens?: FakeTokens;
}

/** A running fake OpenAI-compatible server. */
export interface FakeOpenAI {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  /** Every request received, in arrival order (chat, embeddings, models and unknown paths). */
  readonly requests: RecordedRequest[];
  /** Chat-completions requests that found no scripted reply; each was answered with HTTP 500. */
  readonly unexpected: RecordedRequest[];
  /** Appends replies to the FIFO script. */
  enqueue(...replies: Reply[]): void;
  /** Number of scripted replies not used yet. */
  pending(): number;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}
