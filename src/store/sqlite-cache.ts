/**
 * A key/value Cache on SQLite with per-entry expiry.
 */

import type { DatabaseSync } from "node:sqlite";
import type { Cache } from "./types.ts";

/** Creates the SQLite Cache. */
export function createSqliteCache(db: DatabaseSync): Cache {
  const select = db.prepare("SELECT value_json, expires_at FROM cache WHERE namespace = ? AND key = ?");
  const upsert = db.prepare(
    `INSERT INTO cache (namespace, key, value_json, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (namespace, key) DO UPDATE SET value_json = excluded.value_json,
       created_at = excluded.created_at, expires_at = excluded.expires_at`,
  );
  const remove = db.prepare("DELETE FROM cache WHERE namespace = ? AND key = ?");
  const purge = db.prepare("DELETE FROM cache WHERE expires_at IS NOT NULL AND expires_at <= ?");

  return {
    async get<T>(namespace: string, key: string, nowMs: number) {
      const row = select.get(namespace, key) as { value_json: string; expires_at: number | null } | undefined;
      if (!row) return undefined;
      if (row.expires_at !== null && row.expires_at <= nowMs) {
        remove.run(namespace, key);
        return undefined;
      }
      return JSON.parse(row.value_json) as T;
    },
    async set(namespace, key, value, options) {
      const expires = options.ttlMs === undefined ? null : options.nowMs + options.ttlMs;
      upsert.run(namespace, key, JSON.stringify(value), options.nowMs, expires);
    },
    async delete(namespace, key) {
      remove.run(namespace, key);
    },
    async purgeExpired(nowMs) {
      return Number(purge.run(nowMs).changes);
    },
  };
}
