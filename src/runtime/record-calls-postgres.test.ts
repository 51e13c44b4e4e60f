/**
 * Recorded model calls on the PostgreSQL store: the same scripted run records its calls
 * through the event log of either backend, and they decode alike. Skipped with a notice when
 * PostgreSQL does not answer (failed instead with DOSSIER_REQUIRE_SERVICES=1).
 */

import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { postgresProblem, servicesAnswer, TEST_DATABASE_URL } from "../../test/services.ts";
import { openPostgresStore } from "../store/postgres-store.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import type { Store } from "../store/types.ts";
import { recordedCallsFromEvents } from "../train/calls-from-events.ts";

/**
 * Searches answer in the order of the number in their query, 40 ms apart, and pages after every
 * search: the concurrent tool calls of both runs end in one order, so evidence gets the same ids.
 */
const IN_ORDER = {
  searchLatencyMs: (q: string) => 40 * Number(/\d+/.exec(q)?.[0] ?? 0),
  pageLatencyMs: () => 600,
};

let world: ResearchWorld | undefined;
const schema = `dossier_test_${randomBytes(6).toString("hex")}`;
afterEach(async () => {
  await world?.close();
  world = undefined;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
});

if (servicesAnswer([await postgresProblem()])) {
  describe("recorded calls on PostgreSQL", () => {
    it("are stored through its event log and decode as on SQLite", async () => {
      world = await startResearchWorld({
        expectCalls: { "smtl-plan": 2, "smtl-step": 4, reader: 2 },
        ...IN_ORDER,
      });
      const url = new URL(TEST_DATABASE_URL);
      url.searchParams.set("schema", schema);
      const request = {
        query: "Which topic saw measured growth in the 2025 survey?",
        strategy: "smtl",
        strategyOptions: { mode: "search" },
        currentDate: "2026-03-01",
        recordCalls: true,
      };
      const calls = async (store: Store) => {
        try {
          await store.ready();
          const result = await world!.research(request, { store });
          expect(result.record.status).toBe("completed");
          return recordedCallsFromEvents(await store.events.list(result.runId));
        } finally {
          await store.close();
        }
      };
      const onPostgres = await calls(openPostgresStore({ url: url.toString() }));
      const onSqlite = await calls(openSqliteStore({ home: ":memory:" }));
      const shape = (list: typeof onSqlite) =>
        list.map((c) => ({ role: c.role, step: c.step, messages: c.messages, completion: c.completion }));
      expect(onPostgres.length).toBeGreaterThan(2);
      expect(shape(onPostgres)).toEqual(shape(onSqlite));
    }, 60_000);
  });
}
