/**
 * The PostgreSQL store, for several processes and machines sharing runs: chosen by a
 * `postgres://` database URL (`DOSSIER_DATABASE_URL`, `databaseUrl`, `--database-url`).
 */

import { createPostgresCache } from "./postgres-cache.ts";
import {
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from "./postgres-database.ts";
import { createPostgresDeliveries } from "./postgres-deliveries.ts";
import { createPostgresEventLog } from "./postgres-event-log.ts";
import { createPostgresJournal } from "./postgres-journal.ts";
import { createPostgresRunStore } from "./postgres-run-store.ts";
import type { Store } from "./types.ts";

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database[?schema=name]`. */
  url: string;
  /** Clock for journal timestamps. */
  now?: () => string;
  /** Connections at most (default 10). */
  maxConnections?: number;
  /** How statements whose connection was lost are retried (postgres-retry.ts). */
  retry?: PostgresDatabaseOptions["retry"];
  /** The `application_name` of the store's connections (default `dossier`). */
  applicationName?: string;
}

/**
 * Opens the store at `url`. Nothing is sent before the first operation, which connects and
 * migrates; `await store.ready()` checks the database up front (STORE_ERROR when it does not
 * answer).
 */
export function openPostgresStore(options: PostgresStoreOptions): Store & { db: PostgresDatabase } {
  const db = openPostgresDatabase({
    url: options.url,
    ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.applicationName ? { applicationName: options.applicationName } : {}),
  });
  const now = options.now ?? (() => new Date().toISOString());
  return {
    kind: "postgres",
    db,
    location: db.target.display,
    runs: createPostgresRunStore(db),
    events: createPostgresEventLog(db),
    cache: createPostgresCache(db),
    deliveries: createPostgresDeliveries(db),
    journal: (runId) => createPostgresJournal(db, runId, now),
    ready: () => db.ready(),
    close: () => db.end(),
  };
}
