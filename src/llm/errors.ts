/**
 * Mapping AI SDK and network failures of model calls to retry decisions and typed errors.
 */

import { APICallError } from "@ai-sdk/provider";
import { DossierError } from "../core/errors.ts";
import { parseRetryAfter, type RetryDecision } from "../core/retry.ts";

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
