/**
 * Model prices in USD per million tokens, for cost accounting and the cost budget. A model not
 * in the table (and not priced in the configuration) has an unknown price: its cost is
 * reported as unknown, never as 0. Local servers (ollama, openai-compatible) are unpriced
 * unless the configuration prices them.
 */

import type { ModelPrice } from "../core/usage.ts";
import type { ModelSpec } from "./model-spec.ts";
import { lookupModel } from "./model-table.ts";

/**
 * List prices of well-known hosted models (standard tier, short context). Keys are matched
 * against the model id exactly, then as the longest prefix (so dated snapshots such as
 * `gpt-4o-2024-08-06` match `gpt-4o`). Override or extend with the `prices` setting.
 */
export const PRICE_TABLE: Readonly<Record<string, Readonly<Record<string, ModelPrice>>>> = {
  openai: {
    "gpt-4o": { inputPerMTok: 2.5, outputPerMTok: 10, cachedInputPerMTok: 1.25 },
    "gpt-4o-mini": { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
    "gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
    "gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6, cachedInputPerMTok: 0.1 },
    "gpt-4.1-nano": { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
    "gpt-5": { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.125 },
    "gpt-5-mini": { inputPerMTok: 0.25, outputPerMTok: 2, cachedInputPerMTok: 0.025 },
    "gpt-5-nano": { inputPerMTok: 0.05, outputPerMTok: 0.4, cachedInputPerMTok: 0.005 },
    o3: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
    "o4-mini": { inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.275 },
  },
  anthropic: {
    "claude-opus-4-1": { inputPerMTok: 15, outputPerMTok: 75, cachedInputPerMTok: 1.5 },
    "claude-opus-4": { inputPerMTok: 15, outputPerMTok: 75, cachedInputPerMTok: 1.5 },
    "claude-opus-4-5": { inputPerMTok: 5, outputPerMTok: 25, cachedInputPerMTok: 0.5 },
    "claude-sonnet-4": { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
    "claude-3-7-sonnet": { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
    "claude-haiku-4-5": { inputPerMTok: 1, outputPerMTok: 5, cachedInputPerMTok: 0.1 },
    "claude-3-5-haiku": { inputPerMTok: 0.8, outputPerMTok: 4, cachedInputPerMTok: 0.08 },
  },
  google: {
    "gemini-2.5-pro": { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.31 },
    "gemini-2.5-flash": { inputPerMTok: 0.3, outputPerMTok: 2.5, cachedInputPerMTok: 0.075 },
    "gemini-2.5-flash-lite": { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
    "gemini-2.0-flash": { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
  },
};

/**
 * The price of a model: a configured override (keyed `provider:model`) first, then the table;
 * null when unknown.
 */
export function priceFor(
  spec: ModelSpec,
  overrides: Readonly<Record<string, ModelPrice>> = {},
): ModelPrice | null {
  const configured = overrides[`${spec.provider}:${spec.modelId}`];
  if (configured) return configured;
  return lookupModel(PRICE_TABLE, spec);
}

/** Price per single token, as the budget ledger wants it. */
export function pricePerToken(price: ModelPrice | null): { input: number; output: number } | null {
  return price ? { input: price.inputPerMTok / 1e6, output: price.outputPerMTok / 1e6 } : null;
}
