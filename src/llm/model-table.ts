/**
 * Lookup in a per-provider table of model facts (prices, context windows): the exact model id,
 * else the longest table key the id extends with a dash (`gpt-4.1` for `gpt-4.1-2025-04-14`).
 */

import type { ModelSpec } from "./model-spec.ts";

/** Facts per provider, then per model id (or id prefix). */
export type ModelTable<T> = Readonly<Record<string, Readonly<Record<string, T>>>>;

/** The table's entry for a model, or null when neither its id nor a dated variant's base is listed. */
export function lookupModel<T>(table: ModelTable<T>, spec: ModelSpec): T | null {
  const models = table[spec.provider];
  if (!models) return null;
  const exact = models[spec.modelId];
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const key of Object.keys(models)) {
    if (spec.modelId.startsWith(`${key}-`) && (!best || key.length > best.length)) best = key;
  }
  return best === undefined ? null : (models[best] as T);
}
