/**
 * Time as a dependency. Strategies, budgets and retries read time only through a {@link Clock}
 * so tests can run them against a manual clock.
 */

import { DossierError } from "./errors.ts";

/** A source of time and of waiting. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with a CANCELLED error when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(cancelledError(signal));
        return;
      }
      const timer = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(cancelledError(signal));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** The CANCELLED error for an aborted signal, carrying the abort reason. */
export function cancelledError(signal?: AbortSignal): DossierError {
  const reason = signal?.reason;
  const text =
    reason instanceof DossierError ? reason.message : reason instanceof Error ? reason.message : reason;
  return new DossierError("CANCELLED", `cancelled${text ? `: ${String(text)}` : ""}`, {
    details: { reason: text === undefined ? null : String(text) },
  });
}

/** Throws the CANCELLED error when `signal` has aborted. */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw cancelledError(signal);
}

/** The calendar date (YYYY-MM-DD, UTC) of a clock reading. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
