/**
 * Retry with exponential backoff and jitter that honours a server's `Retry-After`.
 * Pure apart from waiting, which goes through the injected {@link Clock}.
 */

import { type Clock, throwIfAborted } from "./clock.ts";

/** How a call is retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 = no retry). */
  maxRetries: number;
  /** Delay before the first retry, doubled each time. */
  baseDelayMs: number;
  /** Upper bound of any computed delay. */
  maxDelayMs: number;
  /** Fraction of the delay randomised (0 = none, 0.5 = ±50%). */
  jitter: number;
  /** A `Retry-After` longer than this is not waited for: the error is returned instead. */
  maxRetryAfterMs: number;
}

/** Defaults: 2 retries, 1 s base, 30 s cap, ±25% jitter, Retry-After honoured up to 2 minutes. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  jitter: 0.25,
  maxRetryAfterMs: 120_000,
};

/** What a failed attempt means for retrying. */
export interface RetryDecision {
  retryable: boolean;
  /** The server's requested wait, if it sent one. */
  retryAfterMs?: number;
}

/**
 * The delay before retry number `attempt` (1-based): the server's Retry-After when given,
 * else `base · 2^(attempt-1)` capped at `maxDelayMs`, with jitter from `random` in [0,1).
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
  retryAfterMs?: number,
): number {
  if (retryAfterMs !== undefined) return Math.max(0, retryAfterMs);
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const spread = raw * policy.jitter;
  return Math.max(0, Math.round(raw - spread + random() * 2 * spread));
}

/**
 * Parses `Retry-After` (delta-seconds or an HTTP date) and `retry-after-ms` headers into
 * milliseconds from `nowMs`; undefined when absent or unparsable.
 */
export function parseRetryAfter(
  headers: Record<string, string | undefined> | undefined,
  nowMs: number,
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) => {
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
    return undefined;
  };
  const ms = get("retry-after-ms");
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Options of {@link withRetry}. */
export interface WithRetryOptions {
  policy: RetryPolicy;
  clock: Clock;
  signal?: AbortSignal;
  /** Decides whether an error is worth retrying and how long the server asked to wait. */
  classify: (error: unknown) => RetryDecision;
  /** Randomness for jitter; defaults to Math.random. */
  random?: () => number;
  /** Called before each wait. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/**
 * Runs `fn` until it succeeds, the error is not retryable, the retries are used up or the
 * server asks for a wait longer than the policy allows; then rethrows the last error.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: WithRetryOptions,
): Promise<T> {
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(options.signal);
    try {
      return await fn(attempt);
    } catch (error) {
      const decision = options.classify(error);
      if (!decision.retryable || attempt >= options.policy.maxRetries) throw error;
      if (decision.retryAfterMs !== undefined && decision.retryAfterMs > options.policy.maxRetryAfterMs)
        throw error;
      const delayMs = backoffDelay(attempt + 1, options.policy, random, decision.retryAfterMs);
      options.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await options.clock.sleep(delayMs, options.signal);
    }
  }
}
