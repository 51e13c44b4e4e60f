/**
 * A key/value Cache on PostgreSQL with per-entry expiry (times in ms, as the caller's clock says).
 */

import type { PostgresDatabase } from "./postgres-database.ts";
import type { Cache } from "./types.ts";

/** Creates the PostgreSQL Cache. */
export function createPostgresCache(db: PostgresDatabase): Cache {
  return {
    async get<T>(namespace: string, key: string, nowMs: number) {
      const { rows } = await db.query<{ value_json: string; expires_at: string | null }>(
        "SELECT value_json, expires_at FROM cache WHERE namespace = $1 AND key = $2",
        [namespace, key],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (row.expires_at !== null && Number(row.expires_at) <= nowMs) {
        await db.query("DELETE FROM cache WHERE namespace = $1 AND key = $2 AND expires_at <= $3", [
          namespace,
          key,
          nowMs,
        ]);
        return undefined;
      }
      return JSON.parse(row.value_json) as T;
    },
    async set(namespace, key, value, options) {
      const expires = options.ttlMs === undefined ? null : options.nowMs + options.ttlMs;
      await db.query(
        `INSERT INTO cache (namespace, key, value_json, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (namespace, key) DO UPDATE SET value_json = excluded.value_json,
           created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [namespace, key, JSON.stringify(value), options.nowMs, expires],
      );
    },
    async delete(namespace, key) {
      await db.query("DELETE FROM cache WHERE namespace = $1 AND key = $2", [namespace, key]);
    },
    async purgeExpired(nowMs) {
      const { rowCount } = await db.query(
        "DELETE FROM cache WHERE expires_at IS NOT NULL AND expires_at <= $1",
        [nowMs],
      );
      return rowCount;
    },
  };
}
