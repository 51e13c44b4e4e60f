/**
 * A limiter of calls to providers shared beyond one run: each call takes a slot of its provider
 * (at most `concurrency` held at once, at most `ratePerSecond` taken per second) and gives it
 * back when it is over. A run's own gateway keeps its in-process queue per provider (p-queue,
 * with the adaptive limit); a shared limiter bounds every run that holds it together — with the
 * run queue on Redis (`redisUrl`), every worker process (`queue/redis-limiter.ts`). Without one,
 * nothing is shared and each run keeps its own limits, as it always has.
 */

/** How much of one provider the holders of a limiter may use together. */
export interface ProviderLimits {
  /** Slots held at once. */
  concurrency: number;
  /**
   * Slots taken per second at most (unset = unlimited). Below 1, slots are taken at least
   * `1 / ratePerSecond` seconds apart.
   */
  ratePerSecond?: number;
}

/** A slot held; released once (later calls do nothing). */
export interface ProviderSlot {
  release(): Promise<void>;
}

/** Slots of providers, shared by every holder of the limiter. */
export interface ProviderLimiter {
  /**
   * Waits for a slot of `provider` within `limits` (every holder should pass the same limits
   * for a provider); rejects with the signal's reason when `signal` aborts first.
   */
  acquire(provider: string, limits: ProviderLimits, signal?: AbortSignal): Promise<ProviderSlot>;
  /** Releases the slots still held and closes the limiter's connections. */
  close(): Promise<void>;
}

/** The rate window of `ratePerSecond`: `cap` slots per `windowMs`, or none when unset. */
export function rateWindow(ratePerSecond: number | undefined): { cap: number; windowMs: number } | null {
  if (!ratePerSecond || ratePerSecond <= 0) return null;
  if (ratePerSecond >= 1) return { cap: Math.floor(ratePerSecond), windowMs: 1000 };
  return { cap: 1, windowMs: Math.round(1000 / ratePerSecond) };
}

/** Runs `fn` while holding a slot of `provider`. */
export async function withSlot<T>(
  limiter: ProviderLimiter,
  provider: string,
  limits: ProviderLimits,
  fn: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const slot = await limiter.acquire(provider, limits, signal);
  try {
    return await fn();
  } finally {
    await slot.release();
  }
}
