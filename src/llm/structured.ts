/**
 * Structured output that survives weak and local models: the model is asked for JSON matching
 * a zod schema — with the provider's native schema mode where the model supports it, and with
 * the schema as a compact type in the instructions unless the provider's schema mode already
 * shows it to the model; reasoning blocks, code fences and surrounding
 * prose are tolerated; malformed JSON (a trailing comma, single quotes, Python literals, a raw
 * newline in a string, comments) is repaired with `jsonrepair` when the repaired value passes the
 * schema (a format-repair event, no new call) — an answer cut short is not (its end is lost); an
 * answer that does not validate even so is sent back with the validation error,
 * a bounded number of times (default 2), and each failure is recorded as a format-error event.
 * A provider that rejects schema mode is asked again in prompt mode, and its model stays in
 * prompt mode (a `STRUCTURED_OUTPUT_FALLBACK` warning). When every attempt fails the caller
 * gets STRUCTURED_OUTPUT_FAILED and takes its documented fallback.
 */

import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import type { ChatMessage, GenerateRequest, LlmClient } from "./client.ts";
import { answerCutShort, extractJson, repairedJsonValues } from "./json-extract.ts";
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
  /**
   * A check of a value that passed the schema: a message refuses it, and the refusal is the
   * call's format error like any other (recorded on its `llm-end` and `llm-call`, re-asked while
   * repairs are left). Used by protocol codecs whose rules a schema cannot state.
   */
  accept?: (value: T) => string | null;
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
  /** True when the accepted answer was malformed JSON, repaired (see {@link parseStructured}). */
  repaired: boolean;
  /** Id and model of the call whose answer was accepted. */
  callId?: string;
  model?: string;
}

/** The error of an answer whose JSON was cut short (never repaired: its end is lost). */
const CUT_SHORT =
  "the answer ends before its JSON value does (a string or bracket is left open): it was cut short. Reply with the whole value, shorter if need be.";

/** Outcome of {@link parseStructured}. */
export type ParsedAnswer<T> = { ok: true; value: T; repaired: boolean } | { ok: false; error: string };

/**
 * Validates an answer; returns the value or a short, model-readable error. The JSON the answer
 * holds is tried first; when there is none, or it does not match the schema, the answer read
 * leniently ({@link repairedJsonValues}) is tried, and a repaired value that passes the schema
 * is accepted (`repaired: true`). A repaired value is held to the same schema as any other.
 */
export function parseStructured<T>(raw: string, schema: z.ZodType<T>): ParsedAnswer<T> {
  const extracted = extractJson(raw);
  let error: string | undefined;
  if (extracted.ok) {
    const parsed = schema.safeParse(extracted.value);
    if (parsed.success) return { ok: true, value: parsed.data, repaired: false };
    error = z.prettifyError(parsed.error).slice(0, 1200);
  }
  let repairedError: string | undefined;
  for (const value of repairedJsonValues(raw)) {
    const parsed = schema.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data, repaired: true };
    repairedError ??= z.prettifyError(parsed.error).slice(0, 1200);
  }
  // The answer as a whole is valid JSON: its own error. Otherwise what the answer read
  // leniently lacks says more than a fragment found inside it.
  if (extracted.ok && extracted.whole) return { ok: false, error: error! };
  if (answerCutShort(raw)) return { ok: false, error: CUT_SHORT };
  if (repairedError !== undefined) {
    return {
      ok: false,
      error: `the answer is not valid JSON, and read leniently it does not match: ${repairedError}`,
    };
  }
  return extracted.ok ? { ok: false, error: error! } : extracted;
}

/**
 * The instruction appended to the system prompt of a structured call: the schema as a compact
 * type (see schema-outline.ts), about 40% shorter than its JSON Schema text.
 */
export function jsonInstruction(schema: z.ZodType): string {
  return [
    "Answer with only one JSON value of this type (TypeScript; `key?` is optional), no prose, no code fences:",
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
  const { schema, maxRepairs: _m, accept, ...rest } = request;
  const json = schemaToJson(schema);

  for (let attempt = 1; attempt <= maxRepairs + 1; attempt++) {
    let parsed: ParsedAnswer<T> | undefined;
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
          if (parsed.ok && accept) {
            const refused = accept(parsed.value);
            if (refused !== null) parsed = { ok: false, error: refused };
          }
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
    if (parsed?.ok) {
      if (parsed.repaired) {
        client.options.emit?.({
          type: "format-repair",
          callId: result.callId,
          role: request.role,
          model: result.model,
          attempt,
          excerpt: result.text.slice(0, 300),
        });
      }
      return {
        value: parsed.value,
        raw: result.text,
        calls: attempt,
        formatErrors: errors.length,
        repaired: parsed.repaired,
        callId: result.callId,
        model: result.model,
      };
    }
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
      reask: attempt <= maxRepairs,
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
