/**
 * The provider limiter on Redis, shared by every worker process (and every run in each): per
 * provider, a sorted set of the slots held (scored by when each lease ends) and one of the slots
 * taken lately (scored by when each was taken, for the rate), both changed only by atomic Lua
 * scripts on the server's clock, so no two holders can take the last slot and machines with
 * skewed clocks agree. A holder renews its leases while it holds them; a holder that dies
 * (SIGKILL, a lost machine) stops renewing, and its slots are free again once their lease ends,
 * so a crash does not leak a slot. Waiters poll with jitter (the rate script says how long until
 * a slot frees up). No library fitted both limits at once (redis-semaphore holds slots but has no
 * rate; rate-limiter-flexible counts rates but holds no slots), hence the two short scripts.
 *
 * A Redis server that does not answer is not the caller's fault: a call waiting for a slot tries
 * again with backoff, for up to `outageMs` in all (its run is warned, LIMITER_UNAVAILABLE), and
 * only then fails with STORE_ERROR — which fails its run at once (runtime/infrastructure-watch.ts),
 * so no strategy writes a fallback for a call that was never made.
 */

import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Redis } from "ioredis";
import { DossierError, isDossierError } from "../core/errors.ts";
import { infrastructureWatch } from "../runtime/infrastructure-watch.ts";
import {
  type ProviderLimiter,
  type ProviderLimits,
  type ProviderSlot,
  rateWindow,
} from "../tools/provider-limiter.ts";
import { parseRedisUrl } from "./redis-target.ts";

/**
 * KEYS: held, taken. ARGV: slot id, concurrency, lease ms, rate cap (0: none), rate window ms.
 * Returns {1, server ms, held} when the slot is taken, {0, ms to wait (0: unknown), held} when not.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return {0, 0, held} end
local cap = tonumber(ARGV[4])
if cap > 0 then
  local window = tonumber(ARGV[5])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
  if redis.call('ZCARD', KEYS[2]) >= cap then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return {0, math.max(1, tonumber(oldest[2]) + window - now), held}
  end
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[2], window + 1000)
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
if redis.call('PTTL', KEYS[1]) < lease + 1000 then redis.call('PEXPIRE', KEYS[1], lease + 1000) end
return {1, now, held + 1}
`;

/** KEYS: held. ARGV: slot id, lease ms. Returns 1 when the lease was renewed, 0 when it had ended. */
const RENEW = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
if redis.call('PTTL', KEYS[1]) < lease + 1000 then redis.call('PEXPIRE', KEYS[1], lease + 1000) end
return 1
`;

/** KEYS: held. Returns how many slots are held now (expired leases dropped first). */
const HELD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`;

type LimiterClient = Redis & {
  limiterAcquire(...args: (string | number)[]): Promise<[number, number, number]>;
  limiterRenew(...args: (string | number)[]): Promise<number>;
  limiterHeld(key: string): Promise<number>;
};

/** Options of {@link openRedisLimiter}. */
export interface RedisLimiterOptions {
  /** `redis://host:port[?prefix=name]`: the run queue's URL (its prefix keeps the keys apart). */
  url: string;
  /** How long a slot stays held without renewal: a dead holder's slot is free after this (ms). Default 15 000. */
  leaseMs?: number;
  /** How often held slots are renewed (ms). Default a third of the lease. */
  renewMs?: number;
  /** Longest pause between two tries while a provider is full (ms). Default 50. */
  pollMs?: number;
  /**
   * How long a call waits for a Redis server that does not answer before it fails (ms), trying
   * again with backoff meanwhile. Default 60 000.
   */
  outageMs?: number;
  /** First pause between two tries while Redis does not answer (ms), doubled up to 5 s. Default 250. */
  outageRetryMs?: number;
  /** How this process names its slots (default `host:pid`). */
  holder?: string;
  /**
   * The limits that apply to a provider, given those its caller asks for (default: the caller's).
   * Every worker of a queue should be configured alike (see `configuredLimits`).
   */
  limitsOf?: (provider: string, asked: ProviderLimits) => ProviderLimits;
}

/** A slot as {@link RedisLimiter.tryAcquire} gives it. */
export interface RedisSlot extends ProviderSlot {
  readonly id: string;
  /** When Redis granted it (the server's clock, ms since the epoch). */
  readonly grantedAt: number;
}

/** The Redis limiter, with what its tests and the workers' view read. */
export interface RedisLimiter extends ProviderLimiter {
  /** Takes a slot when one is free now; null otherwise. */
  tryAcquire(provider: string, limits: ProviderLimits): Promise<RedisSlot | null>;
  /** Slots of `provider` held now by every holder (expired leases not counted). */
  held(provider: string): Promise<number>;
  /** Leases found ended at renewal while their call was still under way (a holder paused past its lease). */
  lostLeases(): number;
  /** Resolves once Redis answers; STORE_ERROR naming the server otherwise. */
  ready(timeoutMs?: number): Promise<void>;
}

/** Opens the provider limiter on the Redis server of `options.url`. */
export function openRedisLimiter(options: RedisLimiterOptions): RedisLimiter {
  const target = parseRedisUrl(options.url);
  const leaseMs = options.leaseMs ?? 15_000;
  const renewMs = options.renewMs ?? Math.max(100, Math.floor(leaseMs / 3));
  const pollMs = options.pollMs ?? 50;
  const holder = options.holder ?? `${hostname()}:${process.pid}`;
  const outageMs = options.outageMs ?? 60_000;
  const outageRetryMs = options.outageRetryMs ?? 250;
  const redis = new Redis(target.connection.url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: true,
    // Reconnects at most half a second apart, so a call learns soon that the server is away or back.
    retryStrategy: (times: number) => Math.min(times * 50, 500),
    // A server that takes the connection but does not answer counts as one that is away.
    commandTimeout: 10_000,
  }) as LimiterClient;
  redis.on("error", () => {});
  redis.defineCommand("limiterAcquire", { numberOfKeys: 2, lua: ACQUIRE });
  redis.defineCommand("limiterRenew", { numberOfKeys: 1, lua: RENEW });
  redis.defineCommand("limiterHeld", { numberOfKeys: 1, lua: HELD });
  // Hash tags keep a provider's two keys on one node of a cluster.
  const keys = (provider: string) => {
    const base = `${target.prefix}:dossier-limits:{${provider}}`;
    return { held: `${base}:held`, taken: `${base}:taken` };
  };
  const unreachable = (cause: unknown) =>
    new DossierError(
      "STORE_ERROR",
      `the provider limiter at ${target.display} cannot be used: ${(cause as Error).message || String(cause)}`,
      { cause, retryable: true, details: { redis: target.display, limiterUnavailable: true } },
    );

  /** Slots held by this process, by id: renewed together while any is held. */
  const mine = new Map<string, { key: string }>();
  let lost = 0;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const renewAll = async () => {
    const held = [...mine];
    const pipeline = redis.pipeline();
    for (const [id, { key }] of held) (pipeline as unknown as LimiterClient).limiterRenew(key, id, leaseMs);
    const answers = await pipeline.exec().catch(() => null);
    answers?.forEach(([error, renewed], i) => {
      const id = held[i]![0];
      if (!error && renewed === 0 && mine.delete(id)) lost++;
    });
  };
  const hold = (id: string, key: string) => {
    mine.set(id, { key });
    if (!timer) {
      timer = setInterval(() => {
        void renewAll();
      }, renewMs);
      timer.unref();
    }
  };
  const release = async (id: string, key: string) => {
    if (!mine.delete(id)) return;
    if (mine.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
    await redis.zrem(key, id).catch(() => {});
  };

  /** Takes a slot now, or says how long to wait (ms; 0 when unknown: the provider is full). */
  const take = async (provider: string, asked: ProviderLimits): Promise<RedisSlot | number> => {
    if (closed) throw new DossierError("STORE_ERROR", "the provider limiter is closed");
    const limits = options.limitsOf?.(provider, asked) ?? asked;
    const k = keys(provider);
    const id = `${holder}:${randomUUID()}`;
    const rate = rateWindow(limits.ratePerSecond);
    let answer: [number, number, number];
    try {
      answer = await redis.limiterAcquire(
        k.held,
        k.taken,
        id,
        Math.max(1, Math.floor(limits.concurrency)),
        leaseMs,
        rate?.cap ?? 0,
        rate?.windowMs ?? 0,
      );
    } catch (cause) {
      throw unreachable(cause);
    }
    if (answer[0] !== 1) return answer[1];
    hold(id, k.held);
    let released = false;
    return {
      id,
      grantedAt: answer[1],
      release: async () => {
        if (released) return;
        released = true;
        await release(id, k.held);
      },
    };
  };

  /**
   * One pause of a call while Redis does not answer: the run is warned at the first, and once
   * `outageMs` have gone by the call fails (and its run with it).
   */
  const waitOut = async (
    outage: { since: number; tries: number },
    provider: string,
    error: DossierError,
    signal: AbortSignal | undefined,
  ) => {
    const waited = Date.now() - outage.since;
    const watch = infrastructureWatch();
    if (waited >= outageMs) {
      const failure = new DossierError(
        "STORE_ERROR",
        `the provider limiter at ${target.display} did not answer for ${Math.round(waited / 1000)} s (${provider}): ${error.message}`,
        { cause: error, retryable: true, details: { redis: target.display, provider, waitedMs: waited } },
      );
      watch?.failed(failure);
      throw failure;
    }
    if (outage.tries === 0) {
      watch?.waiting({
        code: "LIMITER_UNAVAILABLE",
        message:
          `a call to ${provider} waits for the provider limiter at ${target.display} (up to ${Math.round(outageMs / 1000)} s): ${error.message}`.slice(
            0,
            500,
          ),
      });
    }
    outage.tries++;
    const backoff = Math.min(5_000, outageRetryMs * 2 ** (outage.tries - 1)) * (0.75 + Math.random() / 2);
    await pause(Math.max(1, Math.min(backoff, outageMs - waited)), signal);
  };

  const limiter: RedisLimiter = {
    async tryAcquire(provider, limits) {
      const slot = await take(provider, limits);
      return typeof slot === "number" ? null : slot;
    },
    async acquire(provider, limits, signal) {
      let outage: { since: number; tries: number } | null = null;
      for (let attempt = 0; ; attempt++) {
        signal?.throwIfAborted();
        let slot: RedisSlot | number;
        try {
          slot = await take(provider, limits);
        } catch (error) {
          if (closed || !isDossierError(error) || error.details.limiterUnavailable !== true) throw error;
          outage ??= { since: Date.now(), tries: 0 };
          await waitOut(outage, provider, error, signal);
          continue;
        }
        outage = null;
        if (typeof slot !== "number") return slot;
        // The rate says when its window frees; a full provider is tried again soon, with jitter.
        await pause(slot > 0 ? slot : Math.min(pollMs, 5 * 2 ** attempt) * (0.5 + Math.random()), signal);
      }
    },
    async held(provider) {
      try {
        return await redis.limiterHeld(keys(provider).held);
      } catch (cause) {
        throw unreachable(cause);
      }
    },
    lostLeases: () => lost,
    async ready(timeoutMs = 5_000) {
      let timeout: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          redis.ping(),
          new Promise<never>((_, reject) => {
            timeout = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (cause) {
        throw unreachable(cause);
      } finally {
        clearTimeout(timeout);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      const held = [...mine];
      mine.clear();
      await Promise.allSettled(held.map(([id, { key }]) => redis.zrem(key, id)));
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  return limiter;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
