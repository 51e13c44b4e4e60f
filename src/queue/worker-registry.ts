/**
 * Workers announce themselves on the queue's Redis: each writes what it is and what it runs under
 * a key of its own that expires unless it is written again (its heartbeat), and its name in a
 * sorted set scored by its last heartbeat. A worker that stops cleanly removes both; one that
 * dies drops out when its key expires. Readers (the server's `/v1/workers`, `dossier runs list`,
 * `dossier worker --status`) list the live ones.
 */

import { Redis } from "ioredis";
import { z } from "zod";
import type { RedisTarget } from "./redis-target.ts";

/** A worker as it announces itself. */
export const workerInfoSchema = z.object({
  /** `host:pid`. */
  name: z.string(),
  host: z.string(),
  pid: z.number().int(),
  /** Runs it takes at once. */
  concurrency: z.number().int(),
  /** Ids of the runs under way in it. */
  running: z.array(z.string()),
  startedAt: z.string(),
  /** Its last heartbeat (ISO). */
  heartbeatAt: z.string(),
});
/** A worker as it announces itself. */
export type WorkerInfo = z.infer<typeof workerInfoSchema>;

/** How often a worker's heartbeat is written by default (ms); its key lives three times as long. */
export const WORKER_HEARTBEAT_MS = 5_000;

function keys(target: RedisTarget) {
  return {
    set: `${target.prefix}:dossier-workers`,
    worker: (name: string) => `${target.prefix}:dossier-worker:${name}`,
  };
}

/** A Redis client for the registry (connected on first use; commands fail rather than wait forever). */
export function registryClient(target: RedisTarget): Redis {
  const redis = new Redis(target.connection.url, { maxRetriesPerRequest: 2, lazyConnect: true });
  redis.on("error", () => {});
  return redis;
}

/** Options of {@link announceWorker}. */
export interface AnnounceOptions {
  target: RedisTarget;
  /** What the worker is now (called at each heartbeat). */
  info: () => Omit<WorkerInfo, "heartbeatAt">;
  heartbeatMs?: number;
}

/** A worker's announcement: kept alive until `stop`. */
export interface Announcement {
  /** Writes the heartbeat now (also done every `heartbeatMs`). */
  beat(): Promise<void>;
  /** Stops the heartbeat and removes the worker from the registry. */
  stop(): Promise<void>;
}

/** Announces a worker and keeps its heartbeat until `stop`. */
export function announceWorker(options: AnnounceOptions): Announcement {
  const redis = registryClient(options.target);
  const k = keys(options.target);
  const heartbeatMs = options.heartbeatMs ?? WORKER_HEARTBEAT_MS;
  let name: string | null = null;
  const beat = async () => {
    const now = new Date();
    const info: WorkerInfo = { ...options.info(), heartbeatAt: now.toISOString() };
    name = info.name;
    await redis
      .multi()
      .set(k.worker(info.name), JSON.stringify(info), "PX", heartbeatMs * 3)
      .zadd(k.set, String(now.getTime()), info.name)
      .exec();
  };
  const timer = setInterval(() => {
    void beat().catch(() => {});
  }, heartbeatMs);
  timer.unref();
  return {
    beat,
    async stop() {
      clearInterval(timer);
      if (name)
        await redis
          .multi()
          .del(k.worker(name))
          .zrem(k.set, name)
          .exec()
          .catch(() => {});
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** The live workers announced on `redis` under `target`'s prefix, by name; forgets the dead. */
export async function listWorkers(redis: Redis, target: RedisTarget): Promise<WorkerInfo[]> {
  const k = keys(target);
  const names = await redis.zrange(k.set, "0", "-1");
  if (names.length === 0) return [];
  const values = await redis.mget(names.map(k.worker));
  const workers: WorkerInfo[] = [];
  const gone: string[] = [];
  values.forEach((value, i) => {
    const parsed = value === null ? null : workerInfoSchema.safeParse(safeJson(value));
    if (parsed?.success) workers.push(parsed.data);
    else gone.push(names[i]!);
  });
  if (gone.length) await redis.zrem(k.set, ...gone).catch(() => {});
  return workers.sort((a, b) => a.name.localeCompare(b.name));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
