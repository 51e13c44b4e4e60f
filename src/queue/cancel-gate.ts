/**
 * Cancellation that reaches a worker before its next model call. A cancel is recorded in the
 * store by whichever process asks for it (`POST /v1/runs/{id}/cancel`, `dossier batch` on
 * Ctrl-C, another worker); a run's own heartbeat reads it within a heartbeat. The gate reads it
 * sooner: it wraps the worker's provider limiter, and each model request, once it holds its
 * slot and just before it is sent, waits for a reading of the cancellation requests of the runs
 * under way in this worker that started after the request reached the gate. A run found
 * cancelled is aborted there and then — its request is not sent, nor is any later one — so no
 * model call starts after a cancel is recorded, except those already past the gate.
 *
 * Readings are shared: requests that arrive while one is under way wait for the next, so a
 * worker reads the store at most twice at a time however many requests it sends. A reading that
 * fails or takes longer than `deadlineMs` lets the request go (the heartbeat still brings the
 * cancel); the gate never fails a call of its own.
 */

import type { ProviderLimiter } from "../tools/provider-limiter.ts";

/** Reads the cancellation requests of the runs under way and aborts those cancelled. */
export type CancelCheck = () => Promise<void>;

/** Options of {@link createCancelGate}. */
export interface CancelGateOptions {
  /** How long a request waits for a reading at most (ms). Default 2000. */
  deadlineMs?: number;
  /** Which providers' requests pass the gate. Default: model providers (`model:…`). */
  gates?: (provider: string) => boolean;
}

/** The gate a worker puts before its model requests. */
export interface CancelGate {
  /** `limiter` with the gate after each slot of a gated provider is granted. */
  wrap(limiter: ProviderLimiter): ProviderLimiter;
  /** Gives the gate its check (the worker's, once it runs). Until then requests pass. */
  attach(check: CancelCheck): void;
  /** Waits for a reading that starts after this call (what a gated request does). */
  pass(): Promise<void>;
}

/** Creates a gate; {@link CancelGate.attach} gives it the worker's check. */
export function createCancelGate(options: CancelGateOptions = {}): CancelGate {
  const deadlineMs = options.deadlineMs ?? 2_000;
  const gates = options.gates ?? ((provider: string) => provider.startsWith("model:"));
  let check: CancelCheck | null = null;
  // The reading under way, and the one that waits for it (callers arriving during a reading).
  let current: Promise<void> | null = null;
  let next: Promise<void> | null = null;

  const read = (): Promise<void> => {
    const run = check;
    if (!run) return Promise.resolve();
    const reading = run()
      .catch(() => {})
      .finally(() => {
        if (current === reading) current = null;
      });
    current = reading;
    return reading;
  };
  /** A reading that starts now or after the one under way (never one that started before). */
  const fresh = (): Promise<void> => {
    if (!current) return read();
    next ??= current.then(() => {
      next = null;
      return read();
    });
    return next;
  };
  const pass = async (): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
      timer.unref();
    });
    try {
      await Promise.race([fresh(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    attach(c) {
      check = c;
    },
    pass,
    wrap(limiter) {
      return {
        async acquire(provider, limits, signal) {
          const slot = await limiter.acquire(provider, limits, signal);
          if (!gates(provider)) return slot;
          await pass();
          if (signal?.aborted) {
            await slot.release();
            throw signal.reason instanceof Error ? signal.reason : abortError(signal.reason);
          }
          return slot;
        },
        close: () => limiter.close(),
      };
    },
  };
}

function abortError(reason: unknown): Error {
  const error = new Error(typeof reason === "string" ? reason : "cancelled");
  error.name = "AbortError";
  return error;
}
