/**
 * The step journal of one run on SQLite.
 */

import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../core/errors.ts";
import type { JournalEntry } from "../core/journal.ts";
import type { StoredJournal } from "./types.ts";

/** Creates the journal of `runId`. */
export function createSqliteJournal(db: DatabaseSync, runId: string, now: () => string): StoredJournal {
  const select = db.prepare("SELECT kind, value_json FROM steps WHERE run_id = ? AND key = ?");
  const all = db.prepare("SELECT key, kind, value_json FROM steps WHERE run_id = ?");
  const upsert = db.prepare(
    `INSERT INTO steps (run_id, key, kind, value_json, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (run_id, key) DO UPDATE SET kind = excluded.kind, value_json = excluded.value_json`,
  );
  return {
    async get(key) {
      const row = select.get(runId, key) as { kind: string; value_json: string } | undefined;
      return row ? ({ kind: row.kind, value: JSON.parse(row.value_json) } satisfies JournalEntry) : undefined;
    },
    async put(key, entry) {
      try {
        upsert.run(runId, key, entry.kind, JSON.stringify(entry.value), now());
      } catch (cause) {
        throw new DossierError(
          "STORE_ERROR",
          `cannot journal step ${key} of run ${runId}: ${(cause as Error).message}`,
          {
            cause,
          },
        );
      }
    },
    async entries() {
      const rows = all.all(runId) as { key: string; kind: string; value_json: string }[];
      return new Map(rows.map((row) => [row.key, { kind: row.kind, value: JSON.parse(row.value_json) }]));
    },
  };
}
