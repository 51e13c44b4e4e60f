/**
 * The step journal of one run on PostgreSQL.
 */

import { DossierError } from "../core/errors.ts";
import type { JournalEntry } from "../core/journal.ts";
import type { PostgresDatabase } from "./postgres-database.ts";
import type { StoredJournal } from "./types.ts";

/** Creates the journal of `runId`. */
export function createPostgresJournal(db: PostgresDatabase, runId: string, now: () => string): StoredJournal {
  return {
    async get(key) {
      const { rows } = await db.query<{ kind: string; value_json: string }>(
        "SELECT kind, value_json FROM steps WHERE run_id = $1 AND key = $2",
        [runId, key],
      );
      const row = rows[0];
      return row ? ({ kind: row.kind, value: JSON.parse(row.value_json) } satisfies JournalEntry) : undefined;
    },
    async put(key, entry) {
      try {
        await db.query(
          `INSERT INTO steps (run_id, key, kind, value_json, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (run_id, key) DO UPDATE SET kind = excluded.kind, value_json = excluded.value_json`,
          [runId, key, entry.kind, JSON.stringify(entry.value), now()],
        );
      } catch (cause) {
        throw new DossierError(
          "STORE_ERROR",
          `cannot journal step ${key} of run ${runId}: ${(cause as Error).message}`,
          { cause },
        );
      }
    },
    async entries() {
      const { rows } = await db.query<{ key: string; kind: string; value_json: string }>(
        "SELECT key, kind, value_json FROM steps WHERE run_id = $1",
        [runId],
      );
      return new Map(rows.map((row) => [row.key, { kind: row.kind, value: JSON.parse(row.value_json) }]));
    },
  };
}
