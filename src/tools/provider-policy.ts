/**
 * How the gateway governs calls to one provider: concurrency, rate, timeouts and a deadline,
 * retries, the circuit breaker, caching and adaptive limits; with defaults per provider.
 */

import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../core/retry.ts";
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from "./circuit-breaker.ts";
import { SEARCH_PROVIDER_POLICIES } from "./search/provider-limits.ts";

/** How calls to one provider are governed. */
export interface ProviderPolicy {
  /** Calls in flight at once. */
  concurrency: number;
  /**
   * Calls started per second at most (unset = unlimited). Below 1, calls start at least
   * `1 / ratePerSecond` seconds apart (arXiv: 1/3, one call every three seconds).
   */
  ratePerSecond?: number;
  /** Time limit of one attempt. */
  timeoutMs: number;
  /**
   * Time limit of one call across all its attempts (retries start only while time is left, and
   * the last attempt gets only what is left). Default 1.5 × `timeoutMs`.
   */
  deadlineMs?: number;
  retry: RetryPolicy;
  breaker: BreakerPolicy;
  /** How long results stay cached (0 = not cached). */
  cacheTtlMs: number;
  /**
   * Adapt the concurrency to the provider's answers (adaptive-limit.ts): start at `concurrency`;
   * while calls wait and the provider has not answered 429, one more slot per success, up to
   * `maxConcurrency`; halve it on a 429; then one more after as many successes in a row as calls
   * in flight. Default true.
   */
  adaptive?: boolean;
  /**
   * Calls in flight at once the adaptive limit may grow to while calls wait and the provider
   * keeps answering. Default: the defaults' (four times `concurrency` for most providers); a
   * policy that sets its own `concurrency` without it keeps that as a fixed ceiling. Never below
   * `concurrency`. Shared limits (`shared`) stay at `concurrency` across runs.
   */
  maxConcurrency?: number;
  /**
   * Held to `concurrency` and `ratePerSecond` across every run that shares a provider limiter
   * (the workers of the run queue, together), not only within one run. True for providers whose
   * limits are an account's (search APIs); false for this machine's own work (the corpus, page
   * fetches spread over many hosts, the page reader, whose model calls are limited as model calls).
   * Default true.
   */
  shared?: boolean;
}

/**
 * Defaults by provider, over {@link DEFAULT_PROVIDER_POLICY}: the local corpus, page fetches (one
 * host each) and page reads (model-bound) take more calls at once than a hosted search API; the
 * search providers' own limits (a self-hosted SearXNG takes more calls at once, arXiv one request
 * every three seconds, OpenAlex ten a second) come from their entries (search/provider-limits.ts).
 */
export const PROVIDER_DEFAULTS: Readonly<Record<string, Partial<ProviderPolicy>>> = {
  corpus: { concurrency: 16, shared: false },
  http: { concurrency: 8, maxConcurrency: 32, shared: false },
  reader: { concurrency: 8, maxConcurrency: 32, shared: false },
  embeddings: { shared: false },
  ...SEARCH_PROVIDER_POLICIES,
};

/**
 * Defaults: 4 at once (up to 16 while the provider keeps answering and calls wait), 30 s per
 * attempt, 2 retries, breaker after 5 failures, cached for a day.
 */
export const DEFAULT_PROVIDER_POLICY: ProviderPolicy = {
  concurrency: 4,
  maxConcurrency: 16,
  timeoutMs: 30_000,
  retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 2 },
  breaker: DEFAULT_BREAKER_POLICY,
  cacheTtlMs: 24 * 60 * 60 * 1000,
};
