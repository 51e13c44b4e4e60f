/**
 * Reading a PostgreSQL store URL: `postgres://user[:password]@host[:port]/database[?schema=name]`.
 * `schema` (Dossier's own parameter) puts the store's tables in that schema, created if needed;
 * the rest goes to the driver as is. The password is never shown.
 */

import { DossierError } from "../core/errors.ts";

/** A parsed store URL. */
export interface PostgresTarget {
  /** The connection string for the driver (without `schema`). */
  connectionString: string;
  /** The schema the tables live in (default `public`). */
  schema: string;
  /** The URL with its password replaced by `***`, for messages and `location`. */
  display: string;
}

/** True when `url` names a PostgreSQL database. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Parses a store URL; INPUT_INVALID when it is not a PostgreSQL URL or its schema name is unsafe. */
export function parsePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DossierError("CONFIG_INVALID", "the database URL is not a URL (expected postgres://…)");
  }
  if (!isPostgresUrl(url)) {
    throw new DossierError(
      "CONFIG_INVALID",
      `the database URL must start with postgres:// or postgresql://, got ${parsed.protocol}//…`,
    );
  }
  const schema = parsed.searchParams.get("schema") ?? "public";
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new DossierError(
      "CONFIG_INVALID",
      `the database URL's schema must be a lower-case SQL name (letters, digits, _), got "${schema}"`,
    );
  }
  parsed.searchParams.delete("schema");
  const connectionString = parsed.toString();
  if (parsed.password) parsed.password = "***";
  parsed.searchParams.delete("password");
  return { connectionString, schema, display: parsed.toString() };
}
