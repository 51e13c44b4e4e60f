/**
 * The embedded default store: one SQLite file under the data directory.
 */

import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { createSqliteCache } from "./sqlite-cache.ts";
import { createSqliteDeliveries } from "./sqlite-deliveries.ts";
import { createSqliteEventLog } from "./sqlite-event-log.ts";
import { createSqliteJournal } from "./sqlite-journal.ts";
import { createSqliteRunStore } from "./sqlite-run-store.ts";
import type { Store } from "./types.ts";

/** File name of the database inside the data directory. */
export const DATABASE_FILE = "dossier.db";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** The data directory (`DOSSIER_HOME`), or `:memory:` for a throwaway store. */
  home: string;
  /** Clock for journal timestamps. */
  now?: () => string;
}

/** Opens the store in `home`, creating and migrating it as needed. */
export function openSqliteStore(
  options: SqliteStoreOptions,
): Store & { db: ReturnType<typeof openDatabase> } {
  const location = options.home === ":memory:" ? ":memory:" : join(options.home, DATABASE_FILE);
  const db = openDatabase({ path: location });
  const now = options.now ?? (() => new Date().toISOString());
  return {
    kind: "sqlite",
    db,
    location,
    runs: createSqliteRunStore(db),
    events: createSqliteEventLog(db),
    cache: createSqliteCache(db),
    deliveries: createSqliteDeliveries(db),
    journal: (runId) => createSqliteJournal(db, runId, now),
    ready: async () => {},
    // Closes at once (the returned promise is already settled).
    close: async () => {
      if (db.isOpen) db.close();
    },
  };
}
