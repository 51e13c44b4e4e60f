/**
 * The PostgreSQL connection pool of a store: connects on first use, brings the schema up to date
 * under an advisory lock (several processes may start at once), retries a statement whose
 * connection was lost or terminated (postgres-retry.ts), and turns driver failures into
 * STORE_ERROR naming the database without its password.
 */

import type pg from "pg";
import { DossierError } from "../core/errors.ts";
import { lazyModule } from "../core/lazy-module.ts";
import { POSTGRES_MIGRATIONS } from "./postgres-migrations.ts";
import {
  DEFAULT_STORE_RETRY,
  isTransientStoreError,
  retryTransient,
  type StoreRetryPolicy,
} from "./postgres-retry.ts";
import { type PostgresTarget, parsePostgresUrl } from "./postgres-url.ts";

/** Rows of a query. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Options of one statement. */
export interface QueryOptions {
  /**
   * Send the statement again when its connection was lost or terminated (default true). A
   * caller whose statement may have been applied before its answer was lost passes false and
   * checks before it tries again, in {@link PostgresDatabase.retrying}.
   */
  retry?: boolean;
}

/** A migrated PostgreSQL database. */
export interface PostgresDatabase {
  readonly target: PostgresTarget;
  /** Runs one statement (connecting and migrating first when needed). */
  query<R = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
  /**
   * Runs `fn(attempt)` (0 first) again while it fails on a lost or terminated connection, with
   * the store's backoff and bound; `fn` sends its statements with `{ retry: false }`.
   */
  retrying<T>(fn: (attempt: number) => Promise<T>): Promise<T>;
  /** Resolves once connected and migrated; rejects with STORE_ERROR when the database cannot be used. */
  ready(): Promise<void>;
  /** The schema version stored in the database. */
  schemaVersion(): Promise<number>;
  /** Closes the pool (idempotent). */
  end(): Promise<void>;
}

/** Options of {@link openPostgresDatabase}. */
export interface PostgresDatabaseOptions {
  url: string;
  /** Migrations to apply (tests pass their own). Default: the store's. */
  migrations?: readonly string[];
  /** Connections at most (default 10). */
  maxConnections?: number;
  /** How long connecting may take (default 5 s). */
  connectTimeoutMs?: number;
  /** How transient failures are retried (default {@link DEFAULT_STORE_RETRY}). */
  retry?: Partial<StoreRetryPolicy>;
  /** The `application_name` of the store's connections (default `dossier`). */
  applicationName?: string;
}

/** The PostgreSQL client, loaded with the first database opened (SQLite users never load it). */
const pgModule = lazyModule<typeof pg>("pg");

/** Opens a pool on `url`; nothing is sent before the first query. */
export function openPostgresDatabase(options: PostgresDatabaseOptions): PostgresDatabase {
  const target = parsePostgresUrl(options.url);
  const migrations = options.migrations ?? POSTGRES_MIGRATIONS;
  const pool = new (pgModule().Pool)({
    connectionString: target.connectionString,
    options: `-c search_path=${target.schema}`,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    allowExitOnIdle: true,
    application_name: options.applicationName ?? "dossier",
  });
  const policy: StoreRetryPolicy = { ...DEFAULT_STORE_RETRY, ...options.retry };
  // Nothing is retried before the server has answered once: a wrong address fails at once.
  let answered = false;
  const transient = (error: unknown) => !ended && answered && isTransientStoreError(error);
  const retrying = <T>(fn: (attempt: number) => Promise<T>) => retryTransient(fn, policy, transient);
  // An idle connection the server drops must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  let ended = false;
  let migrated: Promise<void> | null = null;

  const unreachable = (cause: unknown) =>
    cause instanceof DossierError
      ? cause
      : new DossierError(
          "STORE_ERROR",
          `cannot use the PostgreSQL store at ${target.display}: ${(cause as Error).message || String(cause)}`,
          { cause, details: { database: target.display } },
        );

  const ready = (): Promise<void> => {
    if (ended) return Promise.reject(new DossierError("STORE_ERROR", "the store is closed"));
    migrated ??= migrate(pool, target, migrations).then(
      () => {
        answered = true;
      },
      (cause) => {
        migrated = null; // the next call tries again (a database that was restarting)
        throw unreachable(cause);
      },
    );
    return migrated;
  };

  return {
    target,
    ready,
    retrying,
    async query<R>(text: string, values: readonly unknown[] = [], queryOptions: QueryOptions = {}) {
      await ready();
      const once = async () => {
        const result = await pool.query(text, values as unknown[]);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
      };
      try {
        return await (queryOptions.retry === false ? once() : retrying(once));
      } catch (cause) {
        const sqlState = (cause as { code?: unknown }).code;
        throw new DossierError("STORE_ERROR", (cause as Error).message, {
          cause,
          details: { database: target.display, ...(typeof sqlState === "string" ? { sqlState } : {}) },
        });
      }
    },
    async schemaVersion() {
      await ready();
      const { rows } = await pool.query("SELECT COALESCE(MAX(version), 0)::int AS v FROM dossier_migrations");
      return (rows[0] as { v: number }).v;
    },
    async end() {
      if (ended) return;
      ended = true;
      await pool.end();
    },
  };
}

/** Applies the pending migrations, each in its own transaction, under an advisory lock. */
async function migrate(pool: pg.Pool, target: PostgresTarget, migrations: readonly string[]): Promise<void> {
  const client = await pool.connect();
  try {
    for (;;) {
      await client.query("BEGIN");
      try {
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [
          `dossier-migrate:${target.schema}`,
        ]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${target.schema}`);
        await client.query(
          "CREATE TABLE IF NOT EXISTS dossier_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
        );
        const { rows } = await client.query(
          "SELECT COALESCE(MAX(version), 0)::int AS v FROM dossier_migrations",
        );
        const current = (rows[0] as { v: number }).v;
        if (current > migrations.length) {
          throw new DossierError(
            "STORE_ERROR",
            `the store at ${target.display} has schema version ${current}, newer than this Dossier supports (${migrations.length}); upgrade Dossier`,
            { details: { database: target.display, version: current, supported: migrations.length } },
          );
        }
        if (current === migrations.length) {
          await client.query("COMMIT");
          return;
        }
        const version = current + 1;
        try {
          await client.query(migrations[version - 1]!);
        } catch (cause) {
          throw new DossierError(
            "STORE_ERROR",
            `store migration to schema version ${version} failed: ${(cause as Error).message}`,
            { cause, details: { database: target.display, version } },
          );
        }
        await client.query("INSERT INTO dossier_migrations (version, applied_at) VALUES ($1, $2)", [
          version,
          new Date().toISOString(),
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    }
  } finally {
    client.release();
  }
}
