/**
 * Mapping AI SDK and network failures of model calls to retry decisions and typed errors.
 */

import { APICallError } from "@ai-sdk/provider";
import { DossierError } from "../core/errors.ts";
import { parseRetryAfter, type RetryDecision } from "../core/retry.ts";
import type { FailedRequest } from "../core/usage.ts";

/** Marks an abort caused by the per-call time limit. */
export class CallTimeout extends Error {
  constructor(ms: number) {
    super(`model call timed out after ${ms} ms`);
    this.name = "CallTimeout";
  }
}

/** The AI SDK's RetryError (from `ai`, recognised by name so this module need not load it). */
function isRetryError(error: unknown): error is Error & { lastError?: unknown } {
  return error instanceof Error && error.name === "AI_RetryError";
}

function unwrap(error: unknown): unknown {
  return isRetryError(error) ? (error.lastError ?? error) : error;
}

/** Whether a failed model call is worth retrying, and how long the server asked to wait. */
export function classifyLlmError(error: unknown, nowMs: number): RetryDecision {
  const e = unwrap(error);
  if (e instanceof DossierError) return { retryable: e.retryable };
  if (e instanceof CallTimeout) return { retryable: true };
  if (APICallError.isInstance(e)) {
    const retryAfterMs = parseRetryAfter(e.responseHeaders, nowMs);
    return retryAfterMs === undefined
      ? { retryable: e.isRetryable }
      : { retryable: e.isRetryable, retryAfterMs };
  }
  if (e instanceof Error && e.name === "AbortError") return { retryable: false };
  // Malformed bodies, dropped connections and similar transient server faults.
  return { retryable: true };
}

/** The typed error for a failed model call. */
export function toLlmError(
  error: unknown,
  context: { model: string; role: string },
  nowMs: number,
): DossierError {
  const e = unwrap(error);
  if (e instanceof DossierError) return e;
  const where = `${context.model} (role ${context.role})`;
  if (e instanceof CallTimeout) {
    return new DossierError("TIMEOUT", `${where}: ${e.message}`, {
      retryable: true,
      cause: e,
      details: context,
    });
  }
  if (APICallError.isInstance(e)) {
    const status = e.statusCode;
    const details = {
      ...context,
      statusCode: status ?? null,
      retryAfterMs: parseRetryAfter(e.responseHeaders, nowMs) ?? null,
      body: e.responseBody?.slice(0, 500) ?? null,
    };
    if (status === 429) {
      return new DossierError("RATE_LIMITED", `${where}: rate limited (HTTP 429): ${e.message}`, {
        retryable: true,
        cause: e,
        details,
      });
    }
    const statusText = status ? `HTTP ${status}` : "no response";
    return new DossierError("PROVIDER_ERROR", `${where}: ${statusText}: ${e.message}`, {
      retryable: e.isRetryable,
      cause: e,
      details,
    });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new DossierError("PROVIDER_ERROR", `${where}: ${message}`, {
    retryable: true,
    cause: e,
    details: context,
  });
}

/**
 * Whether a failed attempt's request reached the provider, and how it ended (see
 * core/usage.ts): an HTTP error status is an error answer; an answer that could not be read (a
 * success status with a malformed or cut body), the call's time limit and a cancel are a request
 * with no usable answer; null when no answer came back and the request cannot be known to have
 * arrived — refused by Dossier itself (a DossierError: the shared limiter, the budget) or a
 * connection that failed before any answer (refused, host not found, reset: an idle connection
 * the server closed fails the same way, though the server never saw the request).
 */
export function failedRequestOf(error: unknown): FailedRequest | null {
  const e = unwrap(error);
  if (e instanceof DossierError) return null;
  if (e instanceof CallTimeout || (e instanceof Error && e.name === "AbortError")) return "no-answer";
  if (APICallError.isInstance(e)) {
    if (e.statusCode === undefined) return null;
    return e.statusCode >= 400 ? "error-answer" : "no-answer";
  }
  return networkFailure(e) ? null : "no-answer";
}

/** True when `error` (or its cause) is a connection failure: a system or fetch error code, or "fetch failed". */
function networkFailure(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 8; depth++) {
    if (typeof (e as { code?: unknown }).code === "string") return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && /^(fetch failed|bad port|terminated)$/i.test(message.trim()))
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
