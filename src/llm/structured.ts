/**
 * Structured output that survives weak and local models: the model is asked for JSON matching
 * a zod schema; reasoning blocks, code fences and surrounding prose are tolerated; an answer
 * that does not validate is sent back with the validation error, a bounded number of times
 * (default 2), and each failure is recorded as a format-error event. When every attempt
 * fails the caller gets STRUCTURED_OUTPUT_FAILED and takes its documented fallback.
 */

import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import type { ChatMessage, GenerateRequest, LlmClient } from "./client.ts";
import { extractJson } from "./json-extract.ts";

/** Default number of re-asks after the first answer. */
export const DEFAULT_MAX_REPAIRS = 2;

/** A structured request. */
export interface StructuredRequest<T> extends Omit<GenerateRequest, "messages"> {
  schema: z.ZodType<T>;
  /** Re-asks after an invalid answer. Default 2, so at most 3 calls. */
  maxRepairs?: number;
  /** Earlier turns, before the prompt. */
  messages?: ChatMessage[];
}

/** A validated answer. */
export interface StructuredResult<T> {
  value: T;
  /** The raw text of the accepted answer. */
  raw: string;
  /** Calls made (1 + repairs used). */
  calls: number;
  /** Answers rejected before this one. */
  formatErrors: number;
}

/** Validates an answer; returns the value or a short, model-readable error. */
export function parseStructured<T>(
  raw: string,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; error: string } {
  const extracted = extractJson(raw);
  if (!extracted.ok) return extracted;
  const parsed = schema.safeParse(extracted.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: z.prettifyError(parsed.error).slice(0, 1200) };
}

/** The instruction appended to the system prompt of a structured call. */
export function jsonInstruction(schema: z.ZodType): string {
  let jsonSchema: unknown;
  try {
    jsonSchema = z.toJSONSchema(schema, { unrepresentable: "any" });
  } catch {
    jsonSchema = { description: "see the instructions above" };
  }
  return [
    "Answer with one JSON value that conforms to this JSON Schema, and nothing else:",
    "no prose before or after it, no Markdown code fences.",
    JSON.stringify(jsonSchema),
  ].join("\n");
}

/** Asks `client` for a value of `request.schema`, repairing invalid answers. */
export async function generateStructured<T>(
  client: LlmClient,
  request: StructuredRequest<T>,
): Promise<StructuredResult<T>> {
  const maxRepairs = request.maxRepairs ?? DEFAULT_MAX_REPAIRS;
  const system = [request.system, jsonInstruction(request.schema)].filter(Boolean).join("\n\n");
  const messages: ChatMessage[] = [
    ...(request.messages ?? []),
    { role: "user", content: request.prompt ?? "" },
  ];
  const errors: string[] = [];
  const { schema, maxRepairs: _m, ...rest } = request;

  for (let attempt = 1; attempt <= maxRepairs + 1; attempt++) {
    let parsed: ReturnType<typeof parseStructured<T>> | undefined;
    const { result, formatError } = await client.call(
      { ...rest, system, messages: [...messages] },
      (text) => {
        parsed = parseStructured(text, schema);
        return parsed.ok ? null : parsed.error;
      },
    );
    if (parsed?.ok)
      return { value: parsed.value, raw: result.text, calls: attempt, formatErrors: errors.length };
    const error = formatError ?? "invalid answer";
    errors.push(error);
    client.options.emit?.({
      type: "format-error",
      callId: result.callId,
      role: request.role,
      model: result.model,
      attempt,
      error,
      excerpt: result.text.slice(0, 300),
    });
    messages.push(
      { role: "assistant", content: result.text },
      {
        role: "user",
        content: `Your answer could not be used: ${error}\nReply again with only the corrected JSON value.`,
      },
    );
  }
  throw new DossierError(
    "STRUCTURED_OUTPUT_FAILED",
    `role ${request.role}: no valid answer after ${maxRepairs + 1} calls: ${errors.at(-1)}`,
    { details: { role: request.role, calls: maxRepairs + 1, errors } },
  );
}
