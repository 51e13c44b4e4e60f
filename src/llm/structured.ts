/**
 * Structured output that survives weak and local models: the model is asked for JSON matching
 * a zod schema — with the provider's native schema mode where the model supports it, and with
 * the schema as a compact type in the instructions unless the provider's schema mode already
 * shows it to the model; reasoning blocks, code fences and surrounding
 * prose are tolerated; an answer that does not validate is sent back with the validation error,
 * a bounded number of times (default 2), and each failure is recorded as a format-error event.
 * A provider that rejects schema mode is asked again in prompt mode, and its model stays in
 * prompt mode (a `STRUCTURED_OUTPUT_FALLBACK` warning). When every attempt fails the caller
 * gets STRUCTURED_OUTPUT_FAILED and takes its documented fallback.
 */

import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import type { ChatMessage, GenerateRequest, LlmClient } from "./client.ts";
import { extractJson } from "./json-extract.ts";
import type { ProviderName } from "./model-spec.ts";
import { schemaOutline } from "./schema-outline.ts";
import { isNativeEligible, isSchemaModeUnsupported, schemaToJson } from "./structured-mode.ts";

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

/**
 * The instruction appended to the system prompt of a structured call: the schema as a compact
 * type (see schema-outline.ts), about 40% shorter than its JSON Schema text.
 */
export function jsonInstruction(schema: z.ZodType): string {
  return [
    "Answer with one JSON value of this type (TypeScript notation; a `key?` may be left out) and nothing else:",
    "no prose before or after it, no Markdown code fences.",
    schemaOutline(schemaToJson(schema)),
  ].join("\n");
}

/**
 * Providers whose schema mode shows the schema to the model itself (OpenAI, Anthropic and Google
 * put the response format into the model's context and bill it as input): in native mode the
 * prompt does not repeat it. Servers behind `openai-compatible` and Ollama only constrain the
 * decoding, so their models still read the schema in the prompt.
 */
const SHOWS_SCHEMA: ReadonlySet<ProviderName> = new Set(["openai", "anthropic", "google"]);

/** The instruction of a native call whose provider shows the schema to the model. */
const NATIVE_INSTRUCTION =
  "Answer with one JSON value in the response format you were given, and nothing else: no prose, no Markdown code fences.";

/** Asks `client` for a value of `request.schema`, repairing invalid answers. */
export async function generateStructured<T>(
  client: LlmClient,
  request: StructuredRequest<T>,
): Promise<StructuredResult<T>> {
  const maxRepairs = request.maxRepairs ?? DEFAULT_MAX_REPAIRS;
  const instruction = jsonInstruction(request.schema);
  const messages: ChatMessage[] = [
    ...(request.messages ?? []),
    { role: "user", content: request.prompt ?? "" },
  ];
  const errors: string[] = [];
  const { schema, maxRepairs: _m, ...rest } = request;
  const json = schemaToJson(schema);

  for (let attempt = 1; attempt <= maxRepairs + 1; attempt++) {
    let parsed: ReturnType<typeof parseStructured<T>> | undefined;
    const model = client.resolve(request.role);
    const native = model.structuredOutput === "native" && isNativeEligible(json);
    const shown = native && SHOWS_SCHEMA.has(model.spec.provider);
    const system = [request.system, shown ? NATIVE_INSTRUCTION : instruction].filter(Boolean).join("\n\n");
    let call: Awaited<ReturnType<LlmClient["call"]>>;
    try {
      call = await client.call(
        { ...rest, system, messages: [...messages], ...(native ? { responseSchema: json } : {}) },
        (text) => {
          parsed = parseStructured(text, schema);
          return parsed.ok ? null : parsed.error;
        },
      );
    } catch (error) {
      if (!native || !isSchemaModeUnsupported(error)) throw error;
      client.options.registry.demoteToPromptOutput(model.name);
      client.options.emit?.({
        type: "warning",
        code: "STRUCTURED_OUTPUT_FALLBACK",
        message: `${model.name} rejected schema-constrained output; asking for JSON in the prompt from now on`,
      });
      attempt--;
      continue;
    }
    const { result, formatError } = call;
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
