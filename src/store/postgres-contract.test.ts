/**
 * The store contract on PostgreSQL: each test gets a schema of its own in the test database,
 * dropped afterwards. Skipped with a notice when PostgreSQL does not answer (failed instead
 * with DOSSIER_REQUIRE_SERVICES=1).
 */

import { randomBytes } from "node:crypto";
import pg from "pg";
import { postgresProblem, servicesAnswer, TEST_DATABASE_URL } from "../../test/services.ts";
import { describeStoreContract } from "../../test/store/contract.ts";
import { openPostgresStore } from "./postgres-store.ts";

/** A URL of the test database whose store lives in `schema`. */
export function schemaUrl(schema: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("schema", schema);
  return url.toString();
}

/** Drops `schema` and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

if (servicesAnswer([await postgresProblem()])) {
  describeStoreContract({
    name: "postgres",
    async fresh() {
      const schema = `dossier_test_${randomBytes(6).toString("hex")}`;
      const databaseUrl = schemaUrl(schema);
      return {
        spec: { home: ":memory:", databaseUrl },
        open: () => openPostgresStore({ url: databaseUrl, now: () => "2026-01-01T00:00:00.000Z" }),
        dispose: () => dropSchema(schema),
      };
    },
  });
}
