/**
 * When a failed delivery is tried again: exponential backoff with jitter (the project's
 * `backoffDelay`), a receiver's longer `Retry-After` honoured up to the longest delay, and no retry
 * once the attempts are spent or the receiver answered 410 Gone.
 */

import { backoffDelay } from "../core/retry.ts";
import type { WebhookConfig } from "./config-schema.ts";

/** Jitter of retry delays: ±25%. */
export const RETRY_JITTER = 0.25;

/** What an attempt came to, as far as scheduling is concerned. */
export interface AttemptResult {
  /** 2xx. */
  ok: boolean;
  /** The receiver's status, or null. */
  status: number | null;
  /** The receiver's `Retry-After`, in ms. */
  retryAfterMs?: number;
}

/** The next state of a delivery after attempt number `made` (1-based). */
export function nextStep(
  made: number,
  result: AttemptResult,
  policy: Pick<WebhookConfig, "maxAttempts" | "baseDelayMs" | "maxDelayMs">,
  nowMs: number,
  random: () => number,
): { state: "delivered" | "pending" | "failed"; nextAttemptAt: string | null } {
  if (result.ok) return { state: "delivered", nextAttemptAt: null };
  if (made >= policy.maxAttempts || result.status === 410) return { state: "failed", nextAttemptAt: null };
  const backoff = backoffDelay(
    made,
    {
      maxRetries: policy.maxAttempts - 1,
      baseDelayMs: policy.baseDelayMs,
      maxDelayMs: policy.maxDelayMs,
      jitter: RETRY_JITTER,
      maxRetryAfterMs: policy.maxDelayMs,
    },
    random,
  );
  // A receiver that asks for longer gets it, up to the longest delay; never sooner than backoff.
  const delay = Math.max(backoff, Math.min(result.retryAfterMs ?? 0, policy.maxDelayMs));
  return { state: "pending", nextAttemptAt: new Date(nowMs + delay).toISOString() };
}
