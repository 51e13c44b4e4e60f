/**
 * How a structured answer is asked for. `native`: the provider constrains decoding to the JSON
 * schema (OpenAI and OpenAI-compatible servers — vLLM, SGLang, llama.cpp — receive
 * `response_format: { type: "json_schema" }`, Ollama's API `format: <schema>`; Anthropic and
 * Google their own schema modes, all through the AI SDK). `prompt`: the schema only travels in the instructions. Both are validated
 * and repaired the same way; native is the default for every provider, and a provider that
 * rejects schema mode demotes its model to prompt mode (see {@link isSchemaModeUnsupported}).
 */

import { APICallError, type JSONValue, UnsupportedFunctionalityError } from "@ai-sdk/provider";
import type { JSONSchema7, OutputInterface } from "ai";
import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import type { ProviderName } from "./model-spec.ts";

/** The ways a structured answer can be asked for. */
export const STRUCTURED_OUTPUT_MODES = ["native", "prompt"] as const;
/** A way to ask for a structured answer. */
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

/** The mode each provider uses unless a model is configured otherwise. */
export const PROVIDER_STRUCTURED_OUTPUT: Readonly<Record<ProviderName, StructuredOutputMode>> = {
  openai: "native",
  anthropic: "native",
  google: "native",
  "openai-compatible": "native",
  ollama: "native",
};

/** The JSON schema of a zod schema as the model should produce it (defaults optional). */
export function schemaToJson(schema: z.ZodType): JSONSchema7 {
  try {
    return z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as JSONSchema7;
  } catch {
    return { description: "see the instructions above" };
  }
}

/** True when a schema can go to a provider's schema mode (they require an object at the root). */
export function isNativeEligible(json: JSONSchema7): boolean {
  return json.type === "object";
}

/**
 * An AI SDK output specification that only sets the response format: the raw answer text is
 * returned as is (validation and repair stay with structured.ts, so a bad answer is re-asked
 * instead of failing inside the SDK).
 */
export function nativeJsonOutput(json: JSONSchema7, name = "answer"): OutputInterface<string, string, never> {
  const { $schema: _ignored, ...schema } = json;
  return {
    name: "object",
    responseFormat: Promise.resolve({ type: "json", schema, name }),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async ({ text }) => ({ partial: text }),
    createElementStreamTransform: () => undefined,
  };
}

/**
 * Provider options for a native call: schemas go unenforced-strict (`strictJsonSchema: false`),
 * because OpenAI's strict mode rejects optional fields that Dossier's schemas use; the answer is
 * validated afterwards anyway.
 */
export function nativeProviderOptions(provider: ProviderName): Record<string, Record<string, JSONValue>> {
  switch (provider) {
    case "openai":
      return { openai: { strictJsonSchema: false } };
    case "openai-compatible":
      return { openaiCompatible: { strictJsonSchema: false } };
    default:
      return {};
  }
}

const FORMAT_WORDS =
  /response_?format|json[_ ]?schema|structured[ _-]?outputs?|output_(?:config|format)|response_?(?:json_?)?schema|guided_(?:json|decoding)|grammar/i;
const REJECT_WORDS =
  /not (?:be )?supported|unsupported|does not support|doesn't support|unknown|unrecognized|not allowed|invalid|not implemented|extra (?:inputs|fields)/i;

/**
 * True when a failed call says the provider cannot do schema-constrained output (an HTTP 4xx or
 * 501 naming the response format, or the SDK's unsupported-functionality error).
 */
export function isSchemaModeUnsupported(error: unknown): boolean {
  const e = error instanceof DossierError && error.cause !== undefined ? error.cause : error;
  if (UnsupportedFunctionalityError.isInstance(e)) return FORMAT_WORDS.test(e.functionality);
  if (!APICallError.isInstance(e)) return false;
  const status = e.statusCode ?? 0;
  if (!(status >= 400 && status < 500 && status !== 429) && status !== 501) return false;
  const text = `${e.message} ${e.responseBody ?? ""}`;
  return FORMAT_WORDS.test(text) && REJECT_WORDS.test(text);
}
