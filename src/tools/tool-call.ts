/**
 * One call through the tool gateway, as its caller describes it (what runs, what the tool-end
 * event reports of its value), and how a failure reads: the structured error a caller gets back,
 * and whether it says anything about the provider's health (the circuit breaker).
 */

import { DossierError, toDossierError } from "../core/errors.ts";
import type { ToolError } from "./types.ts";

/** One call through the gateway. */
export interface ToolCall<T> {
  /** Tool name: `web_search`, `fetch_page`, `crawl_page`, `local_search`, … */
  tool: string;
  /** Who serves it: `tavily`, `http`, `corpus`, … Policies, breakers and limits are per provider. */
  provider: string;
  /** The arguments, for the cache key and the events. */
  args: unknown;
  /** Does the work; must honour `signal`. */
  run: (signal: AbortSignal) => Promise<T>;
  /** Whether to use the cache (default true when the provider's TTL is above 0). */
  cache?: boolean;
  /** Result count for the tool-end event. */
  count?: (value: T) => number;
  /** A note for the tool-end event (e.g. dropped excerpts). */
  note?: (value: T) => string | undefined;
  /** A fetched page's validators for the tool-end event. */
  validators?: (value: T) => { etag?: string; lastModified?: string } | undefined;
  /** A search's result URLs for the tool-end event. */
  urls?: (value: T) => string[];
}

/**
 * Failures that say something about the provider's health: transient ones (timeouts, 5xx,
 * rate limits, dropped connections). A 404 or a bad request says nothing about the provider,
 * so a run of dead links cannot open the breaker of the page fetcher.
 */
export function countsAgainstBreaker(error: DossierError): boolean {
  return error.retryable || error.code === "TIMEOUT" || error.code === "RATE_LIMITED";
}

/** The structured observation of an error. */
export function toolError(error: unknown): ToolError {
  const e = error instanceof DossierError ? error : toDossierError(error, "TOOL_ERROR");
  return { code: e.code, message: e.message, retryable: e.retryable };
}
