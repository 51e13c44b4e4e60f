/**
 * Opening a corpus index file: node:sqlite with sqlite-vec loaded (extension loading is
 * switched off again right after), WAL, a 64 MB page cache, and the corpus migrations.
 */

import { existsSync } from "node:fs";
import { dirname } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../../core/errors.ts";
import { lazyModule } from "../../core/lazy-module.ts";
import { nodeSqlite } from "../../core/node-support.ts";
import { migrateDatabase } from "../../store/database.ts";
import { makeDirs } from "../../store/make-dirs.ts";
import { CORPUS_MIGRATIONS } from "./corpus-schema.ts";

/** sqlite-vec, loaded when the first corpus database opens. */
const sqliteVec = lazyModule<typeof import("sqlite-vec")>("sqlite-vec");

/** An open corpus database. */
export interface CorpusDatabase {
  db: DatabaseSync;
  /** Whether sqlite-vec could be loaded (needed for hybrid retrieval). */
  vectors: boolean;
  /** Why sqlite-vec could not be loaded. */
  vectorError?: string;
}

function storeError(message: string, path: string, cause?: unknown): DossierError {
  return new DossierError("STORE_ERROR", message, { cause, details: { path } });
}

/** Opens (creating unless `create` is false) and migrates the corpus database at `path`. */
export function openCorpusDatabase(path: string, options: { create?: boolean } = {}): CorpusDatabase {
  const memory = path === ":memory:";
  if (!memory) {
    if (options.create === false && !existsSync(path)) {
      throw new DossierError("NOT_FOUND", `no corpus index at ${path}`, { details: { path } });
    }
    makeDirs(dirname(path));
  }
  let db: DatabaseSync;
  try {
    db = new (nodeSqlite().DatabaseSync)(path, { allowExtension: true, enableForeignKeyConstraints: true });
  } catch (cause) {
    throw storeError(`cannot open the corpus index at ${path}: ${(cause as Error).message}`, path, cause);
  }
  let vectors = true;
  let vectorError: string | undefined;
  try {
    sqliteVec().load(db);
  } catch (error) {
    vectors = false;
    vectorError = (error as Error).message;
  }
  db.enableLoadExtension(false);
  db.exec("PRAGMA busy_timeout = 5000");
  if (!memory) db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA cache_size = -65536");
  migrateDatabase(db, CORPUS_MIGRATIONS, path, "corpus index");
  return { db, vectors, ...(vectorError ? { vectorError } : {}) };
}
