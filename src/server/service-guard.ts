/**
 * Failing fast when a service does not answer: before the server accepts a run (or reads the
 * queue for `/v1/workers`) it asks the store and, with the run queue, Redis, each within
 * {@link SERVICE_ANSWER_MS}. One that does not answer makes the request 503 SERVICE_UNAVAILABLE
 * with `Retry-After`, and nothing is created.
 */

import { isDossierError } from "../core/errors.ts";
import { withDeadline } from "../queue/deadline.ts";
import { servicesReady } from "../queue/services-ready.ts";
import type { Store } from "../store/types.ts";
import { ApiError } from "./errors.ts";

/** How long a service has to answer before a request is refused (ms). */
export const SERVICE_ANSWER_MS = 1_500;
/** The `Retry-After` of a 503 (seconds). */
export const RETRY_AFTER_S = 5;

/** The 503 answer for a service that did not answer. */
export function unavailable(cause: unknown): ApiError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ApiError(503, "SERVICE_UNAVAILABLE", `a service the server needs does not answer: ${message}`, {
    "Retry-After": String(RETRY_AFTER_S),
  });
}

/** Resolves when the store (and the queue's Redis, when `queued` is given) answer; 503 otherwise. */
export async function guardServices(
  store: Store,
  queued: { ready(timeoutMs: number): Promise<void> } | null,
): Promise<void> {
  try {
    if (queued) await queued.ready(SERVICE_ANSWER_MS);
    else await servicesReady(store, null, SERVICE_ANSWER_MS);
  } catch (error) {
    throw unavailable(error);
  }
}

/** `promise` within the services' bound, its TIMEOUT or STORE_ERROR a 503. */
export async function withinServiceBound<T>(promise: Promise<T>, what: string): Promise<T> {
  try {
    return await withDeadline(promise, SERVICE_ANSWER_MS, what);
  } catch (error) {
    if (isDossierError(error) && (error.code === "TIMEOUT" || error.code === "STORE_ERROR"))
      throw unavailable(error);
    throw error;
  }
}
