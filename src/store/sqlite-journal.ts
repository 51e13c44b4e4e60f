/**
 * The step journal of one run on SQLite.
 */

import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../core/errors.ts";
import type { JournalEntry, StepJournal } from "../core/journal.ts";

/** Creates the journal of `runId`. */
export function createSqliteJournal(db: DatabaseSync, runId: string, now: () => string): StepJournal {
  const select = db.prepare("SELECT kind, value_json FROM steps WHERE run_id = ? AND key = ?");
  const upsert = db.prepare(
    `INSERT INTO steps (run_id, key, kind, value_json, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (run_id, key) DO UPDATE SET kind = excluded.kind, value_json = excluded.value_json`,
  );
  return {
    get(key) {
      const row = select.get(runId, key) as { kind: string; value_json: string } | undefined;
      return row ? ({ kind: row.kind, value: JSON.parse(row.value_json) } satisfies JournalEntry) : undefined;
    },
    put(key, entry) {
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
  };
}
