/**
 * The PostgreSQL store when the server terminates its connections (pg_terminate_backend, as an
 * administrator or a failover does): appends, journal writes, claims and updates are sent again
 * on a fresh connection, so a run's event log stays whole and contiguous; with retries turned
 * off the same terminations fail the writes (what a run saw before). Skipped with a notice when
 * PostgreSQL does not answer (failed instead with DOSSIER_REQUIRE_SERVICES=1).
 */

import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresProblem, servicesAnswer, TEST_DATABASE_URL } from "../../test/services.ts";
import { isDossierError } from "../core/errors.ts";
import { isTransientStoreError } from "./postgres-retry.ts";
import { openPostgresStore } from "./postgres-store.ts";

function schemaUrl(schema: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("schema", schema);
  return url.toString();
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A store in a schema of its own whose connections carry a name of their own. */
function freshStore(retry?: { retries: number }) {
  const schema = `dossier_test_${randomBytes(6).toString("hex")}`;
  const applicationName = `dossier-retry-${randomBytes(4).toString("hex")}`;
  const store = openPostgresStore({
    url: schemaUrl(schema),
    applicationName,
    retry: { baseDelayMs: 20, maxDelayMs: 200, ...retry },
  });
  cleanups.push(async () => {
    await store.close();
    await dropSchema(schema);
  });
  return { store, applicationName };
}

/** Terminates every backend connection of `applicationName` from a connection of its own; how many. */
async function terminate(applicationName: string): Promise<number> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
      [applicationName],
    );
    return rows.filter((r) => r.ok).length;
  } finally {
    await admin.end();
  }
}

const OWNER = { host: "h", pid: 1, startedAt: "2026-01-01T00:00:00.000Z" };
const TS = "2026-01-01T00:00:00.000Z";

if (servicesAnswer([await postgresProblem()])) {
  describe("PostgreSQL store under terminated connections", () => {
    it("knows a terminated or lost connection from a failing statement", () => {
      expect(isTransientStoreError({ code: "57P01", message: "terminating connection" })).toBe(true);
      expect(isTransientStoreError(new Error("x", { cause: { code: "08006" } }))).toBe(true);
      expect(isTransientStoreError(new Error("Connection terminated unexpectedly"))).toBe(true);
      expect(isTransientStoreError({ code: "ECONNRESET" })).toBe(true);
      expect(isTransientStoreError({ code: "23505", message: "duplicate key" })).toBe(false);
      expect(isTransientStoreError({ code: "42P01", message: "relation does not exist" })).toBe(false);
    });

    it("keeps appending, journaling and updating a run after its connections are terminated", async () => {
      const { store, applicationName } = freshStore();
      await store.runs.create({
        id: "r1",
        query: "q",
        strategy: "s",
        options: {},
        createdAt: TS,
        owner: OWNER,
      });
      const journal = store.journal("r1");
      let terminated = 0;
      const appended: Promise<unknown>[] = [];
      for (let i = 0; i < 60; i++) {
        // Appends go out without waiting (as a run writes them); every 15th, the server drops us.
        appended.push(store.events.append("r1", { type: "warning", code: "N", message: `e${i}` }, TS));
        if (i % 15 === 7) {
          await new Promise((r) => setTimeout(r, 5));
          terminated += await terminate(applicationName);
          appended.push(journal.put(`k${i}`, { kind: "llm", value: { i } }));
        }
      }
      await Promise.all(appended);
      expect(terminated, "connections terminated during the appends").toBeGreaterThan(0);
      const events = await store.events.list("r1");
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect(events.map((e) => (e as { message?: string }).message)).toEqual(
        Array.from({ length: 60 }, (_, i) => `e${i}`),
      );
      expect((await journal.entries()).size).toBe(4);

      expect(await terminate(applicationName)).toBeGreaterThan(0);
      const updated = await store.runs.update("r1", { updatedAt: TS, status: "interrupted" });
      expect(updated.status).toBe("interrupted");
      expect(await terminate(applicationName)).toBeGreaterThan(0);
      const claimed = await store.runs.claim("r1", OWNER, "2026-01-01T00:00:01.000Z");
      expect(claimed?.status).toBe("running");
    }, 30_000);

    it("fails the writes on the same terminations when retries are off", async () => {
      const { store, applicationName } = freshStore({ retries: 0 });
      await store.runs.create({
        id: "r1",
        query: "q",
        strategy: "s",
        options: {},
        createdAt: TS,
        owner: OWNER,
      });
      // Rounds of appends with the server dropping the connections under them, until one fails.
      let failed: PromiseRejectedResult[] = [];
      for (let round = 0; round < 20 && failed.length === 0; round++) {
        const appended = Array.from({ length: 10 }, (_, i) =>
          store.events.append("r1", { type: "warning", code: "N", message: `e${round}.${i}` }, TS),
        );
        await terminate(applicationName);
        const settled = await Promise.allSettled(appended);
        failed = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
      }
      expect(failed.length).toBeGreaterThan(0);
      const reason = failed[0]!.reason;
      expect(isDossierError(reason, "STORE_ERROR")).toBe(true);
      expect(isTransientStoreError(reason)).toBe(true);
    }, 30_000);
  });
}
