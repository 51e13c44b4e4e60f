/**
 * Transient failures of the PostgreSQL store and how they are retried: a connection the server
 * terminated (`57P01` and kin, an administrator or a failover), a connection lost or reset
 * (`08xxx`, ECONNRESET, the driver's "Connection terminated"), a serialization failure or a
 * deadlock. Such a statement is sent again on a fresh connection after a backoff, a bounded
 * number of times; anything else fails at once. A statement that may have been applied before
 * its answer was lost is checked by its caller before it is sent again (see
 * postgres-event-log.ts), so a retry never applies a change twice.
 */

/** How transient store failures are retried. */
export interface StoreRetryPolicy {
  /** Tries after the first (0: no retry). */
  retries: number;
  /** Pause before the first retry (ms), doubled each time. */
  baseDelayMs: number;
  /** Longest pause between two tries (ms). */
  maxDelayMs: number;
}

/** About 20 s of retries in all: a restart or a failover of the server has time to finish. */
export const DEFAULT_STORE_RETRY: StoreRetryPolicy = { retries: 9, baseDelayMs: 100, maxDelayMs: 4_000 };

/** SQLSTATEs worth trying again: the connection ended, the server is (re)starting, a conflict. */
const TRANSIENT_SQLSTATES = new Set([
  "57P01", // admin_shutdown (pg_terminate_backend, a fast shutdown)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, failing over)
  "40001", // serialization_failure
  "40P01", // deadlock_detected
]);

/** Socket errors of a connection that was reset or could not be made again. */
const TRANSIENT_NETWORK = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNREFUSED", "EHOSTUNREACH"]);

/** Messages of the driver for a connection that ended under it (it gives them no code). */
const TRANSIENT_MESSAGES = [
  /connection terminated/i,
  /terminating connection/i,
  /connection error and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /server closed the connection unexpectedly/i,
];

/** True when `error` (or its cause) says the statement may succeed on a fresh connection. */
export function isTransientStoreError(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (TRANSIENT_SQLSTATES.has(code) || code.startsWith("08")) return true;
      if (TRANSIENT_NETWORK.has(code)) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && TRANSIENT_MESSAGES.some((m) => m.test(message))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The pause before retry number `attempt` (1-based), with jitter of ±25 %. */
export function storeRetryDelay(attempt: number, policy: StoreRetryPolicy, random = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}

/**
 * Runs `fn(attempt)` (0 first) until it succeeds, fails with an error that is not transient, or
 * the retries are used up (the last error is thrown). `retryable` decides what is transient.
 */
export async function retryTransient<T>(
  fn: (attempt: number) => Promise<T>,
  policy: StoreRetryPolicy,
  retryable: (error: unknown) => boolean = isTransientStoreError,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= policy.retries || !retryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, storeRetryDelay(attempt + 1, policy)));
    }
  }
}
