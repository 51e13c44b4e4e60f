/**
 * Token and cost accounting. A count or price that is not known stays `null` — never 0 —
 * and a total that includes an unknown part is itself unknown.
 *
 * A model call is counted once per request the provider received: a call retried after a 429
 * or a 500 is as many calls as requests were sent, and a call that failed counts its requests
 * too (see {@link failedRequestUsage}); a request refused before it was sent (connection refused,
 * host not found, the shared limiter unavailable, the budget) is not counted.
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

/**
 * How a request the provider received ended without a usable answer: an error answer (an HTTP
 * error status such as 429 or 500), or no answer it could use (the call's time limit, a cancel,
 * a connection dropped after sending, a body that does not parse).
 */
export type FailedRequest = "error-answer" | "no-answer";

/**
 * What a request that gave no usable answer counts as, one model call: an error answer carries
 * no usage and is not billed, so 0 tokens at no cost; a request with no usable answer may have
 * been processed in full, so its estimated input tokens and whole output cap, priced when the
 * price is known (as a call lost in a crash).
 */
export function failedRequestUsage(
  failed: FailedRequest,
  request: { estimatedInputTokens: number; maxOutputTokens: number },
  price: ModelPrice | null,
): CallUsage {
  if (failed === "error-answer") return { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const inputTokens = Math.max(0, Math.ceil(request.estimatedInputTokens));
  const outputTokens = Math.max(0, Math.floor(request.maxOutputTokens));
  return { inputTokens, outputTokens, costUsd: costOf({ inputTokens, outputTokens }, price) };
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
