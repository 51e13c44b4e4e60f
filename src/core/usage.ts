/**
 * Token and cost accounting. A count or price that is not known stays `null` — never 0 —
 * and a total that includes an unknown part is itself unknown.
 */

import { z } from "zod";

/** Usage of one model call. */
export const callUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative().nullable(),
  outputTokens: z.number().int().nonnegative().nullable(),
  costUsd: z.number().nonnegative().nullable(),
});
/** Usage of one model call; null = unknown. */
export type CallUsage = z.infer<typeof callUsageSchema>;

/** Accumulated usage of a run. */
export const usageTotalsSchema = z.object({
  inputTokens: z.number().int().nonnegative().nullable(),
  outputTokens: z.number().int().nonnegative().nullable(),
  costUsd: z.number().nonnegative().nullable(),
  llmCalls: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
});
/** Accumulated usage of a run; a null field means at least one call's figure was unknown. */
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

/** Totals before any call. */
export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, costUsd: 0, llmCalls: 0, toolCalls: 0 };
}

/** Adds two possibly-unknown quantities: unknown if either is. */
export function addKnown(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** Totals after one more model call. */
export function addCallUsage(totals: UsageTotals, call: CallUsage): UsageTotals {
  return {
    inputTokens: addKnown(totals.inputTokens, call.inputTokens),
    outputTokens: addKnown(totals.outputTokens, call.outputTokens),
    costUsd: addKnown(totals.costUsd, call.costUsd),
    llmCalls: totals.llmCalls + 1,
    toolCalls: totals.toolCalls,
  };
}

/** Price of a model in USD per million tokens. */
export const modelPriceSchema = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cachedInputPerMTok: z.number().nonnegative().optional(),
});
/** Price of a model in USD per million tokens. */
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/**
 * Cost of a call: null when the price or either token count is unknown. Cached input tokens,
 * when reported and priced, are charged at the cached rate.
 */
export function costOf(
  usage: { inputTokens: number | null; outputTokens: number | null; cachedInputTokens?: number | null },
  price: ModelPrice | null,
): number | null {
  if (!price || usage.inputTokens === null || usage.outputTokens === null) return null;
  const cached =
    price.cachedInputPerMTok !== undefined ? Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens) : 0;
  const fresh = usage.inputTokens - cached;
  return (
    (fresh * price.inputPerMTok +
      cached * (price.cachedInputPerMTok ?? 0) +
      usage.outputTokens * price.outputPerMTok) /
    1_000_000
  );
}
