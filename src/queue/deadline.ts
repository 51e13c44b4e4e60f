/**
 * A bound on a wait: a promise raced against a timer. The promise itself goes on (a Redis
 * client keeps a command queued while the server is away); only the caller stops waiting.
 */

import { DossierError } from "../core/errors.ts";

/** Resolves as `promise` does, or rejects with TIMEOUT naming `what` after `ms`. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DossierError("TIMEOUT", `${what}: no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
