/**
 * One recorded model call: exactly what the model saw and said, and the place in the run it
 * served. This is the unit of every training export (a chat conversation plus its completion)
 * and what the step-level rewards read (the completion is the step's reasoning T_t; its format
 * errors decide r_format).
 *
 * - `messages` are in the chat format trainers read (role + content string); an assistant turn
 *   may carry the tool calls it made, and a `tool` turn answers one of them by id.
 * - `tools` (tool definitions offered) or `responseSchema` (the JSON schema of a structured
 *   answer) describe what the model was asked to produce.
 * - `completion` is the raw answer text before any parsing or repair; `formatErrors` lists every
 *   parse or validation error raised on it (empty when it was well-formed).
 * - No credential, header or endpoint URL is part of a call: nothing secret can be recorded.
 */

import { z } from "zod";
import { callUsageSchema } from "../core/usage.ts";
import { ROLES } from "../llm/model-spec.ts";
import { callTokensSchema } from "./tokens/call-tokens.ts";

/** A tool call an assistant turn made: its id, the tool's name and the arguments as written. */
export const messageToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments exactly as the model wrote them (JSON text, possibly malformed). */
  arguments: z.string(),
});
/** A tool call an assistant turn made. */
export type MessageToolCall = z.infer<typeof messageToolCallSchema>;

/** One chat message. `toolCalls` only on assistant turns; a `tool` turn names the call it answers. */
export const recordedMessageSchema = z
  .object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.string(),
    toolCalls: z.array(messageToolCallSchema).optional(),
    toolCallId: z.string().min(1).optional(),
  })
  .superRefine((m, ctx) => {
    if (m.toolCalls && m.role !== "assistant")
      ctx.addIssue({
        code: "custom",
        path: ["toolCalls"],
        message: "only an assistant turn makes tool calls",
      });
    if (m.role === "tool" && !m.toolCallId)
      ctx.addIssue({
        code: "custom",
        path: ["toolCallId"],
        message: "a tool turn names the call it answers",
      });
    if (m.role !== "tool" && m.toolCallId)
      ctx.addIssue({ code: "custom", path: ["toolCallId"], message: "only a tool turn answers a tool call" });
  });
/** One chat message. */
export type RecordedMessage = z.infer<typeof recordedMessageSchema>;

/** A tool offered to the model: name, description and the JSON schema of its arguments. */
export const toolDefinitionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()),
});
/** A tool offered to the model. */
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** Sampling parameters of a call; a parameter left to the provider's default is absent. */
export const samplingSchema = z.object({
  temperature: z.number().min(0).optional(),
  topP: z.number().gt(0).max(1).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
});
/** Sampling parameters of a call. */
export type Sampling = z.infer<typeof samplingSchema>;

/** One recorded model call. */
export const recordedCallSchema = z
  .object({
    runId: z.string().min(1),
    /** The call's id in the run (`L12`), as on its llm-start / llm-end events. */
    callId: z.string().min(1),
    /** The model role it served (`searcher`, `writer`, …). */
    role: z.enum(ROLES),
    /** The agent or step it ran in (`planner`, `search:T-2`, `section:1.2`), when known. */
    scope: z.string().min(1).optional(),
    /**
     * The agent's step this call belongs to, counted per scope from 1. Repair rounds of one
     * answer share their step.
     */
    step: z.number().int().positive(),
    /**
     * Set on a call made inside a tool call (a page reader's summary within `crawl_page`): the
     * engine's work for that tool call, sharing the agent's step but not a step of its own.
     */
    toolCallId: z.string().min(1).optional(),
    /** `provider:model`. */
    model: z.string().min(1),
    messages: z.array(recordedMessageSchema).min(1),
    tools: z.array(toolDefinitionSchema).optional(),
    responseSchema: z.record(z.string(), z.unknown()).optional(),
    sampling: samplingSchema,
    /** The raw completion text, before parsing (empty when the call failed). */
    completion: z.string(),
    /** Parse or validation errors raised on the completion; empty when it was well-formed. */
    formatErrors: z.array(z.string()),
    usage: callUsageSchema,
    finishReason: z.string().optional(),
    /** Set when the call failed (no usable completion). */
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    startedAt: z.iso.datetime({ offset: true }),
    endedAt: z.iso.datetime({ offset: true }),
    /** The server's token ids and log-probs (runs with `recordTokens`; tokens/call-tokens.ts). */
    tokens: callTokensSchema.optional(),
  })
  .refine((c) => Date.parse(c.endedAt) >= Date.parse(c.startedAt), {
    path: ["endedAt"],
    message: "a call ends after it starts",
  });
/** One recorded model call. */
export type RecordedCall = z.infer<typeof recordedCallSchema>;

/**
 * True when the call's completion raised no format error. A call that failed for another reason
 * (rate limit, timeout) is not a format fault of the model.
 */
export function callFormatOk(call: Pick<RecordedCall, "formatErrors">): boolean {
  return call.formatErrors.length === 0;
}
