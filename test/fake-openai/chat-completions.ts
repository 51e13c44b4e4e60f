/**
 * Builders of chat-completions payloads (whole `chat.completion` objects and streamed
 * `chat.completion.chunk` objects) for the fake OpenAI server.
 */

import type { ReplyUsage, TextReply, ToolCallsReply } from "./types.ts";

/** Identity fields shared by all payloads of one response. */
export interface CompletionContext {
  /** The `id` field, e.g. `chatcmpl-fake-3`. */
  id: string;
  /** The `created` field, in Unix seconds. */
  created: number;
  /** The `model` field. */
  model: string;
  /** 1-based number of the chat-completions request; used for default tool call ids. */
  requestNumber: number;
}

/** Usage in the OpenAI wire format, with the total. */
export interface WireUsage extends ReplyUsage {
  /** `prompt_tokens + completion_tokens`. */
  total_tokens: number;
}

/** The fake token count of a text: `ceil(text.length / 4)`. */
export function countTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Characters of a message `content` (a string or an array of parts with `text`). */
function contentChars(content: unknown): number {
  if (typeof content === "string") {
    return content.length;
  }
  if (Array.isArray(content)) {
    return content.reduce<number>((sum, part) => {
      const text = typeof part === "object" && part !== null ? (part as { text?: unknown }).text : undefined;
      return sum + (typeof text === "string" ? text.length : 0);
    }, 0);
  }
  return 0;
}

/**
 * The fake prompt token count of a chat-completions request body: `ceil(c / 4)` where `c`
 * is the total number of characters of the messages' text content.
 */
export function countPromptTokens(body: unknown): number {
  const messages =
    typeof body === "object" && body !== null ? (body as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) {
    return 0;
  }
  const chars = messages.reduce<number>((sum, message) => {
    const content =
      typeof message === "object" && message !== null
        ? (message as { content?: unknown }).content
        : undefined;
    return sum + contentChars(content);
  }, 0);
  return Math.ceil(chars / 4);
}

/** The arguments of a scripted tool call as the JSON string sent on the wire. */
export function argumentsString(args: object | string): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** The text a reply "generates", used for the default completion token count. */
function generatedText(reply: TextReply | ToolCallsReply): string {
  if (reply.kind === "text") {
    return reply.text;
  }
  return (reply.text ?? "") + reply.calls.map((call) => call.name + argumentsString(call.arguments)).join("");
}

/** The usage to report for a reply, or `null` to omit it. */
export function resolveUsage(reply: TextReply | ToolCallsReply, body: unknown): WireUsage | null {
  if (reply.usage === null) {
    return null;
  }
  const usage = reply.usage ?? {
    prompt_tokens: countPromptTokens(body),
    completion_tokens: countTextTokens(generatedText(reply)),
  };
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

/** The wire tool calls of a reply. */
function wireToolCalls(reply: ToolCallsReply, ctx: CompletionContext) {
  return reply.calls.map((call, index) => ({
    id: call.id ?? `call_fake_${ctx.requestNumber}_${index}`,
    type: "function" as const,
    function: { name: call.name, arguments: argumentsString(call.arguments) },
  }));
}

/** A whole `chat.completion` object for a text or tool-calls reply. */
export function completionObject(
  reply: TextReply | ToolCallsReply,
  body: unknown,
  ctx: CompletionContext,
): object {
  const usage = resolveUsage(reply, body);
  const message =
    reply.kind === "text"
      ? { role: "assistant", content: reply.text }
      : { role: "assistant", content: reply.text ?? null, tool_calls: wireToolCalls(reply, ctx) };
  const finishReason = reply.kind === "text" ? (reply.finishReason ?? "stop") : "tool_calls";
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    ...(usage === null ? {} : { usage }),
  };
}

/** Splits text into several word-sized deltas (each word keeps its trailing whitespace). */
export function splitText(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Splits a string into pieces of at most `size` characters. */
function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    pieces.push(text.slice(i, i + size));
  }
  return pieces.length > 0 ? pieces : [""];
}

/** A `chat.completion.chunk` object with one choice. */
function chunk(ctx: CompletionContext, delta: object, finishReason: string | null = null): object {
  return {
    id: ctx.id,
    object: "chat.completion.chunk",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The text delta chunks of `text`. */
function textChunks(ctx: CompletionContext, text: string): object[] {
  return splitText(text).map((piece) => chunk(ctx, { content: piece }));
}

/** The tool call delta chunks: id and name first, then the arguments in pieces. */
function toolCallChunks(reply: ToolCallsReply, ctx: CompletionContext): object[] {
  return wireToolCalls(reply, ctx).flatMap((call, index) => [
    chunk(ctx, {
      tool_calls: [
        { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
      ],
    }),
    ...splitEvery(call.function.arguments, 8).map((piece) =>
      chunk(ctx, { tool_calls: [{ index, function: { arguments: piece } }] }),
    ),
  ]);
}

/**
 * The streamed `chat.completion.chunk` objects of a text or tool-calls reply, ending with
 * the finish chunk and, when `includeUsage` is true and usage is not omitted, a usage chunk
 * with `choices: []`. The `[DONE]` sentinel is not included.
 */
export function completionChunks(
  reply: TextReply | ToolCallsReply,
  body: unknown,
  ctx: CompletionContext,
  includeUsage: boolean,
): object[] {
  const chunks = [chunk(ctx, { role: "assistant", content: reply.kind === "text" ? "" : null })];
  if (reply.kind === "text") {
    chunks.push(...textChunks(ctx, reply.text));
  } else {
    chunks.push(...textChunks(ctx, reply.text ?? ""), ...toolCallChunks(reply, ctx));
  }
  const finishReason = reply.kind === "text" ? (reply.finishReason ?? "stop") : "tool_calls";
  chunks.push(chunk(ctx, {}, finishReason));
  const usage = resolveUsage(reply, body);
  if (includeUsage && usage !== null) {
    chunks.push({
      id: ctx.id,
      object: "chat.completion.chunk",
      created: ctx.created,
      model: ctx.model,
      choices: [],
      usage,
    });
  }
  return chunks;
}

/** The chunks sent before a truncated stream drops: the opening chunk and about half the text. */
export function truncatedChunks(text: string, ctx: CompletionContext): object[] {
  const pieces = splitText(text);
  const sent = pieces.slice(0, Math.max(1, Math.ceil(pieces.length / 2))).join("");
  return [chunk(ctx, { role: "assistant", content: "" }), ...textChunks(ctx, sent)];
}
