/**
 * The chat format the exports write: OpenAI's chat-completions message format, which OpenAI
 * fine-tuning reads and TRL's conversational datasets (and the transformers chat templates
 * behind them) read too.
 *
 * - `system` and `user` turns: `{role, content}`.
 * - `assistant` turns: `{role, content, tool_calls?}`, each tool call
 *   `{id, type: "function", function: {name, arguments}}`. `arguments` is the JSON text as the
 *   model wrote it (OpenAI's form); with `toolArguments: "object"` it is the parsed object
 *   instead, which chat templates that serialise arguments themselves (`| tojson`) expect.
 * - `tool` turns: `{role, tool_call_id, content}`.
 * - Tools offered: `{type: "function", function: {name, description?, parameters}}`.
 *
 * Converters copy the known fields one by one: nothing else on a recorded message (or on an
 * object posing as one) can reach an exported file.
 */

import { z } from "zod";
import type { MessageToolCall, RecordedMessage, ToolDefinition } from "../recorded-call.ts";

/** How tool-call arguments are written: JSON text (OpenAI) or the parsed object. */
export type ToolArgumentsForm = "string" | "object";

/** A tool call in an assistant turn. */
export const chatToolCallSchema = z.strictObject({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.strictObject({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
  }),
});
/** A tool call in an assistant turn. */
export type ChatToolCall = z.infer<typeof chatToolCallSchema>;

/** A system turn. */
export const chatSystemMessageSchema = z.strictObject({ role: z.literal("system"), content: z.string() });
/** A user turn. */
export const chatUserMessageSchema = z.strictObject({ role: z.literal("user"), content: z.string() });
/** An assistant turn. */
export const chatAssistantMessageSchema = z.strictObject({
  role: z.literal("assistant"),
  content: z.string(),
  tool_calls: z.array(chatToolCallSchema).min(1).optional(),
});
/** A tool turn: the result of one tool call. */
export const chatToolMessageSchema = z.strictObject({
  role: z.literal("tool"),
  tool_call_id: z.string().min(1),
  content: z.string(),
});

/** One chat message. */
export const chatMessageSchema = z.discriminatedUnion("role", [
  chatSystemMessageSchema,
  chatUserMessageSchema,
  chatAssistantMessageSchema,
  chatToolMessageSchema,
]);
/** One chat message. */
export type ChatMessage = z.infer<typeof chatMessageSchema>;
/** An assistant turn. */
export type ChatAssistantMessage = z.infer<typeof chatAssistantMessageSchema>;

/** A tool offered to the model. */
export const chatToolSchema = z.strictObject({
  type: z.literal("function"),
  function: z.strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});
/** A tool offered to the model. */
export type ChatTool = z.infer<typeof chatToolSchema>;

/**
 * A conversation whose every tool turn answers a tool call an earlier assistant turn made (the
 * rule chat templates and OpenAI's validator apply). Adds an issue per orphan tool turn.
 */
export function checkToolTurns(messages: readonly ChatMessage[], ctx: z.RefinementCtx, path: PropertyKey[]) {
  const asked = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role === "assistant") for (const call of m.tool_calls ?? []) asked.add(call.id);
    if (m.role === "tool" && !asked.has(m.tool_call_id))
      ctx.addIssue({
        code: "custom",
        path: [...path, i, "tool_call_id"],
        message: `tool turn answers ${m.tool_call_id}, which no earlier assistant turn asked for`,
      });
  });
}

/** Thrown by {@link toChatMessages} in object form when arguments are not a JSON object. */
export class ToolArgumentsNotObject extends Error {}

function chatToolCall(call: MessageToolCall, form: ToolArgumentsForm): ChatToolCall {
  let args: ChatToolCall["function"]["arguments"] = call.arguments;
  if (form === "object") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.arguments);
    } catch {
      throw new ToolArgumentsNotObject(`tool call ${call.id}: arguments are not JSON`);
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
      throw new ToolArgumentsNotObject(`tool call ${call.id}: arguments are not a JSON object`);
    args = parsed as Record<string, unknown>;
  }
  return { id: call.id, type: "function", function: { name: call.name, arguments: args } };
}

/**
 * Recorded messages in the chat format. In object form, arguments that are not a JSON object
 * throw {@link ToolArgumentsNotObject} (the caller skips that example).
 */
export function toChatMessages(
  messages: readonly RecordedMessage[],
  form: ToolArgumentsForm = "string",
): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    if (m.role === "tool") return { role: "tool", tool_call_id: m.toolCallId ?? "", content: m.content };
    if (m.role !== "assistant") return { role: m.role, content: m.content };
    return m.toolCalls && m.toolCalls.length > 0
      ? { role: "assistant", content: m.content, tool_calls: m.toolCalls.map((c) => chatToolCall(c, form)) }
      : { role: "assistant", content: m.content };
  });
}

/** Tool definitions in the chat format. */
export function toChatTools(tools: readonly ToolDefinition[]): ChatTool[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      parameters: t.parameters,
    },
  }));
}

/** The prompt of a question as a chat: an optional system turn, then the question as the user turn. */
export function questionPrompt(
  question: string,
  systemPrompt?: string,
): Array<z.infer<typeof chatSystemMessageSchema> | z.infer<typeof chatUserMessageSchema>> {
  return [
    ...(systemPrompt === undefined ? [] : [{ role: "system" as const, content: systemPrompt }]),
    { role: "user", content: question },
  ];
}
