/**
 * Choosing the store: PostgreSQL when a database URL is given, else the embedded SQLite file
 * under the data directory.
 */

import { DossierError } from "../core/errors.ts";
import { openPostgresStore } from "./postgres-store.ts";
import { isPostgresUrl } from "./postgres-url.ts";
import { openSqliteStore } from "./sqlite-store.ts";
import type { Store } from "./types.ts";

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** The data directory (the SQLite store's home), or `:memory:`. */
  home: string;
  /** A `postgres://` URL; absent or empty: SQLite under `home`. */
  databaseUrl?: string | undefined;
  /** Clock for journal timestamps. */
  now?: () => string;
}

/** Opens the store the options name. */
export function openStore(options: OpenStoreOptions): Store {
  const url = options.databaseUrl?.trim();
  const now = options.now ? { now: options.now } : {};
  if (!url) return openSqliteStore({ home: options.home, ...now });
  if (!isPostgresUrl(url)) {
    throw new DossierError(
      "CONFIG_INVALID",
      "the database URL must start with postgres:// or postgresql:// (without one, the SQLite store under the data directory is used)",
    );
  }
  return openPostgresStore({ url, ...now });
}
