/**
 * Context windows (input and output tokens together) of well-known hosted models, for
 * strategies that size their working memory from the model's context (smtl's context reset and
 * page window). Keys match the model id exactly, then as the longest prefix followed by `-`
 * (dated snapshots such as `gpt-4o-2024-08-06` match `gpt-4o`). Local servers (ollama,
 * openai-compatible) are unknown: a strategy falls back to its seed's window or an option.
 */

import type { ModelSpec } from "./model-spec.ts";
import { lookupModel } from "./model-table.ts";

/** Context windows in tokens, per provider and model id (or id prefix). */
export const CONTEXT_WINDOWS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  openai: {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    o3: 200_000,
    "o4-mini": 200_000,
  },
  anthropic: {
    "claude-opus-4-1": 200_000,
    "claude-opus-4": 200_000,
    "claude-opus-4-5": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-3-7-sonnet": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-3-5-haiku": 200_000,
  },
  google: {
    "gemini-2.5-pro": 1_048_576,
    "gemini-2.5-flash": 1_048_576,
    "gemini-2.5-flash-lite": 1_048_576,
    "gemini-2.0-flash": 1_048_576,
  },
};

/** The context window of a model in tokens; null when unknown. */
export function contextWindowFor(spec: ModelSpec): number | null {
  return lookupModel(CONTEXT_WINDOWS, spec);
}
