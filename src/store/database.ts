/**
 * Opening the embedded SQLite database (`node:sqlite`) and bringing its schema up to date.
 */

import { dirname } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../core/errors.ts";
import { nodeSqlite } from "../core/node-support.ts";
import { makeDirs } from "./make-dirs.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** File path, or `:memory:`. */
  path: string;
  /** Migrations to apply (tests pass their own). Default: the store's. */
  migrations?: readonly string[];
}

/** Opens (creating if needed) a database and migrates it; throws STORE_ERROR on a newer schema. */
export function openDatabase(options: OpenDatabaseOptions): DatabaseSync {
  const migrations = options.migrations ?? MIGRATIONS;
  if (options.path !== ":memory:") makeDirs(dirname(options.path));
  let db: DatabaseSync;
  try {
    db = new (nodeSqlite().DatabaseSync)(options.path, { enableForeignKeyConstraints: true });
  } catch (cause) {
    throw new DossierError(
      "STORE_ERROR",
      `cannot open the store at ${options.path}: ${(cause as Error).message}`,
      {
        cause,
        details: { path: options.path },
      },
    );
  }
  db.exec("PRAGMA busy_timeout = 5000");
  if (options.path !== ":memory:") db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  migrateDatabase(db, migrations, options.path);
  return db;
}

/** The schema version stored in the database. */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  return row.user_version;
}

/**
 * Brings a database to the newest of `migrations` (`user_version` N = migration N applied),
 * each in its own transaction; a newer schema or a failed migration closes the database and
 * throws STORE_ERROR. `what` names the database in messages ("store", "corpus index").
 */
export function migrateDatabase(
  db: DatabaseSync,
  migrations: readonly string[],
  path: string,
  what = "store",
): void {
  const current = schemaVersion(db);
  if (current > migrations.length) {
    db.close();
    throw new DossierError(
      "STORE_ERROR",
      `the ${what} at ${path} has schema version ${current}, newer than this Dossier supports (${migrations.length}); upgrade Dossier`,
      { details: { path, version: current, supported: migrations.length } },
    );
  }
  for (let version = current + 1; version <= migrations.length; version++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(migrations[version - 1]!);
      db.exec(`PRAGMA user_version = ${version}`);
      db.exec("COMMIT");
    } catch (cause) {
      db.exec("ROLLBACK");
      db.close();
      throw new DossierError(
        "STORE_ERROR",
        `${what} migration to schema version ${version} failed: ${(cause as Error).message}`,
        { cause, details: { path, version } },
      );
    }
  }
}

export { SCHEMA_VERSION };
