/**
 * Reading a run-queue URL: `redis://[user:password@]host[:port][/db][?prefix=name]` (or
 * `rediss://` for TLS). `prefix` (Dossier's own parameter) keeps the queue's keys apart from
 * other queues on the same server; the rest goes to the Redis client. The password is never shown.
 */

import { DossierError } from "../core/errors.ts";

/** A parsed queue URL. */
export interface RedisTarget {
  /** What BullMQ connects with. */
  connection: { url: string; maxRetriesPerRequest: null; enableOfflineQueue: boolean };
  /** Prefix of the queue's keys (default `dossier`). */
  prefix: string;
  /** The URL with its password replaced by `***`, for messages. */
  display: string;
}

/** True when `url` names a Redis server. */
export function isRedisUrl(url: string): boolean {
  return /^rediss?:\/\//i.test(url.trim());
}

/** Parses a queue URL; CONFIG_INVALID when it is not a redis:// URL or its prefix is unsafe. */
export function parseRedisUrl(url: string): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new DossierError("CONFIG_INVALID", "the queue URL is not a URL (expected redis://host:port)");
  }
  if (!isRedisUrl(url)) {
    throw new DossierError(
      "CONFIG_INVALID",
      `the queue URL must start with redis:// or rediss://, got ${parsed.protocol}//…`,
    );
  }
  const prefix = parsed.searchParams.get("prefix") ?? "dossier";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix)) {
    throw new DossierError(
      "CONFIG_INVALID",
      `the queue URL's prefix must be letters, digits, - or _ (at most 64), got "${prefix}"`,
    );
  }
  parsed.searchParams.delete("prefix");
  const connectionUrl = parsed.toString();
  if (parsed.password) parsed.password = "***";
  return {
    // Workers block on Redis: the client retries a command until the server answers again.
    connection: { url: connectionUrl, maxRetriesPerRequest: null, enableOfflineQueue: true },
    prefix,
    display: parsed.toString(),
  };
}
