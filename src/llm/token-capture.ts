/**
 * Token-level capture of model calls (runs with `recordTokens`, for on-policy RL): the prompt's
 * token ids, the completion's token ids and the sampler's per-token log-probs, taken from the
 * inference server — never re-tokenized from text here (train/tokens/ re-tokenizes, and says so,
 * only when a server returned none).
 *
 * What is asked for, on an `openai-compatible:` model (the request body's extension fields):
 *
 * - `return_token_ids: true` — vLLM (0.10.2 and later) answers the response's `prompt_token_ids`
 *   and each choice's `token_ids`; SGLang's chat API (after 0.5.9) each choice's `token_ids`;
 * - `return_prompt_token_ids: true` — SGLang: each choice's `prompt_token_ids`;
 * - `logprobs: true`, `top_logprobs: 0` — OpenAI's form, which both follow: each choice's
 *   `logprobs.content[i].logprob`, one per generated token;
 * - `return_tokens_as_token_ids: true` — vLLM: each `logprobs.content[i].token` is
 *   `token_id:<id>`, the completion's ids on a vLLM older than `return_token_ids`.
 *
 * A server ignores the fields it does not know (vLLM and SGLang do). vLLM's older
 * `prompt_logprobs` is not used: its first entry is null, so the prompt's first id is lost.
 * Other providers are sent nothing: their calls carry no ids.
 *
 * A call's ids are whole or absent: prompt and completion ids both, else none (`null`); the
 * log-probs are kept when there is exactly one per completion id. Whether the call's decoding
 * was constrained to a JSON schema (guided decoding; a trainer cannot recompute that
 * distribution) is recorded with them. A run whose strategy speaks its native protocol asks
 * every structured answer in the prompt instead ({@link tokenCaptureOf}).
 */

import type { JSONValue } from "@ai-sdk/provider";
import type { ProviderName } from "./model-spec.ts";

/** Token capture of a client (see the module comment). */
export interface TokenCapture {
  /**
   * False: structured answers are asked for in the prompt, never with the provider's schema mode
   * (no guided decoding).
   */
  guidedDecoding: boolean;
}

/** The server's token ids of one call, as recorded. */
export interface CallTokens {
  /** The call's decoding was constrained to a JSON schema (the provider's schema mode). */
  constrained: boolean;
  /** The prompt as the server tokenized it (chat template applied); null when it returned none. */
  promptIds: number[] | null;
  /** The sampled tokens, the stop token included when the server lists it; null when none. */
  completionIds: number[] | null;
  /** The sampler's log-probability of each completion token; null when none. */
  logprobs: number[] | null;
}

/** The ids and log-probs of a response; absent ones are null. */
export type ServerTokens = Omit<CallTokens, "constrained">;

/** The request fields that ask an OpenAI-compatible server for ids and log-probs. */
export const TOKEN_REQUEST_FIELDS: Readonly<Record<string, JSONValue>> = {
  return_token_ids: true,
  return_prompt_token_ids: true,
  logprobs: true,
  top_logprobs: 0,
  return_tokens_as_token_ids: true,
};

/** The provider options that add {@link TOKEN_REQUEST_FIELDS} to a request; null: the provider has none. */
export function tokenProviderOptions(
  provider: ProviderName,
): Record<string, Record<string, JSONValue>> | null {
  return provider === "openai-compatible" ? { openaiCompatible: { ...TOKEN_REQUEST_FIELDS } } : null;
}

/** Two provider-options objects as one (a provider's fields merged). */
export function mergeProviderOptions(
  a: Record<string, Record<string, JSONValue>>,
  b: Record<string, Record<string, JSONValue>> | null,
): Record<string, Record<string, JSONValue>> {
  if (!b) return a;
  const out = { ...a };
  for (const [key, value] of Object.entries(b)) out[key] = { ...out[key], ...value };
  return out;
}

/** The token capture a run's options ask for: `recordTokens`, off for a native protocol's guided decoding. */
export function tokenCaptureOf(runOptions: object): TokenCapture | undefined {
  const options = runOptions as { recordTokens?: unknown; strategyOptions?: unknown };
  if (options.recordTokens !== true) return undefined;
  const protocol = (options.strategyOptions as { protocol?: unknown } | undefined)?.protocol;
  return { guidedDecoding: protocol !== "native" };
}

const isIds = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((n) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0);
const field = (v: unknown, key: string): unknown =>
  v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;

/**
 * The ids and log-probs of a chat-completions response body (vLLM's or SGLang's fields, see the
 * module comment); null ids when the body has none.
 */
export function tokensOfResponse(body: unknown): ServerTokens {
  const choice = (field(body, "choices") as unknown[] | undefined)?.[0];
  const content = field(field(choice, "logprobs"), "content");
  const entries = Array.isArray(content) ? content : [];
  const prompt = field(body, "prompt_token_ids") ?? field(choice, "prompt_token_ids");
  let completion = field(choice, "token_ids");
  if (!isIds(completion) && entries.length > 0) {
    // vLLM with `return_tokens_as_token_ids`: the tokens are `token_id:<id>`.
    const ids = entries.map((e) => /^token_id:(\d+)$/.exec(String(field(e, "token")))?.[1]);
    if (ids.every((id) => id !== undefined)) completion = ids.map(Number);
  }
  if (!isIds(prompt) || !isIds(completion)) return { promptIds: null, completionIds: null, logprobs: null };
  const logprobs = entries.map((e) => field(e, "logprob"));
  const aligned =
    logprobs.length === completion.length &&
    logprobs.every((l) => typeof l === "number" && Number.isFinite(l));
  return {
    promptIds: [...prompt],
    completionIds: [...completion],
    logprobs: aligned ? (logprobs as number[]) : null,
  };
}
