/**
 * The webhook outbox on both backends: a delivery per event key, leases that hand each due
 * delivery to one taker until they end, attempts recorded only under the lease, and the outbox
 * read back after a reopen. PostgreSQL tests get a schema of their own (skipped with a notice
 * when PostgreSQL does not answer, failed with DOSSIER_REQUIRE_SERVICES=1).
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresProblem, servicesAnswer, TEST_DATABASE_URL } from "../../test/services.ts";
import { openPostgresStore } from "./postgres-store.ts";
import { openSqliteStore } from "./sqlite-store.ts";
import type { DeliveryAttempt, NewDelivery, Store } from "./types.ts";

const T0 = "2026-01-01T00:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

function delivery(n: number, overrides: Partial<NewDelivery> = {}): NewDelivery {
  return {
    id: `msg_${String(n).padStart(4, "0")}`,
    runId: "run-a",
    eventType: "run.completed",
    eventKey: `run-a|run.completed|${T0}|https://hooks.example/${n}`,
    url: `https://hooks.example/${n}`,
    body: JSON.stringify({ type: "run.completed", n }),
    createdAt: T0,
    maxAttempts: 5,
    ...overrides,
  };
}

const failed = (seconds: number, status: number | null, error: string): DeliveryAttempt => ({
  at: at(seconds),
  status,
  error,
  durationMs: 12,
});

/** A URL of the test database whose store lives in `schema`. */
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

interface Backend {
  name: string;
  /** A fresh store and how to open it again. */
  fresh(): Promise<{ open(): Store; dispose(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: "sqlite",
    async fresh() {
      const home = mkdtempSync(join(tmpdir(), "dossier-deliveries-"));
      return {
        open: () => openSqliteStore({ home }),
        dispose: async () => rmSync(home, { recursive: true, force: true }),
      };
    },
  },
];
if (servicesAnswer([await postgresProblem()])) {
  backends.push({
    name: "postgres",
    async fresh() {
      const schema = `dossier_test_${randomBytes(6).toString("hex")}`;
      const url = schemaUrl(schema);
      return { open: () => openPostgresStore({ url }), dispose: () => dropSchema(schema) };
    },
  });
}

for (const backend of backends) {
  describe(`webhook outbox (${backend.name})`, () => {
    const cleanup: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });
    const open = async () => {
      const fresh = await backend.fresh();
      const store = fresh.open();
      cleanup.push(fresh.dispose, () => store.close());
      for (const id of ["run-a", "run-b"]) {
        await store.runs.create({ id, query: `query ${id}`, strategy: "graph", options: {}, createdAt: T0 });
      }
      return { store, reopen: () => fresh.open() };
    };

    it("adds a delivery once per event key, pending with no attempt", async () => {
      const { store } = await open();
      const added = await store.deliveries.add([delivery(1), delivery(2)]);
      expect(added.map((d) => d.id)).toEqual(["msg_0001", "msg_0002"]);
      expect(added[0]).toMatchObject({
        state: "pending",
        attempts: [],
        nextAttemptAt: T0,
        deliveredAt: null,
        maxAttempts: 5,
      });
      // The same events again (another process saw the same status): nothing new.
      const again = await store.deliveries.add([delivery(1, { id: "msg_9999" }), delivery(3)]);
      expect(again.map((d) => d.id)).toEqual(["msg_0003"]);
      expect((await store.deliveries.list("run-a")).map((d) => d.id)).toEqual([
        "msg_0001",
        "msg_0002",
        "msg_0003",
      ]);
      expect(await store.deliveries.list("run-b")).toEqual([]);
    });

    it("leases each due delivery to one taker until the lease ends", async () => {
      const { store } = await open();
      await store.deliveries.add([delivery(1), delivery(2), delivery(3, { runId: "run-b" })]);
      const first = await store.deliveries.lease({ now: at(0), until: at(30), token: "a", limit: 10 });
      expect(first.map((d) => d.id)).toEqual(["msg_0001", "msg_0002", "msg_0003"]);
      expect(await store.deliveries.lease({ now: at(10), until: at(40), token: "b", limit: 10 })).toEqual([]);
      // The lease ended (its holder died): another takes them.
      const second = await store.deliveries.lease({ now: at(30), until: at(60), token: "b", limit: 2 });
      expect(second.map((d) => d.id)).toEqual(["msg_0001", "msg_0002"]);
      // The first holder's lease is gone: its record changes nothing.
      expect(
        await store.deliveries.record("msg_0001", "a", failed(31, 500, "HTTP 500"), {
          state: "pending",
          nextAttemptAt: at(90),
        }),
      ).toBe(false);
      expect((await store.deliveries.list("run-a"))[0]!.attempts).toEqual([]);
    });

    it("leases the deliveries of one run only when asked", async () => {
      const { store } = await open();
      await store.deliveries.add([delivery(1), delivery(2, { runId: "run-b" })]);
      const leased = await store.deliveries.lease({
        now: at(0),
        until: at(30),
        token: "a",
        limit: 10,
        runId: "run-b",
      });
      expect(leased.map((d) => d.id)).toEqual(["msg_0002"]);
    });

    it("records attempts under the lease: retried when due, then delivered", async () => {
      const { store, reopen } = await open();
      await store.deliveries.add([delivery(1)]);
      await store.deliveries.lease({ now: at(0), until: at(30), token: "a", limit: 1 });
      expect(
        await store.deliveries.record("msg_0001", "a", failed(0, 503, "HTTP 503"), {
          state: "pending",
          nextAttemptAt: at(60),
        }),
      ).toBe(true);
      expect(await store.deliveries.nextDue()).toBe(at(60));
      // Not due before its next attempt.
      expect(await store.deliveries.lease({ now: at(59), until: at(90), token: "b", limit: 1 })).toEqual([]);
      const retried = await store.deliveries.lease({ now: at(60), until: at(90), token: "b", limit: 1 });
      expect(retried.map((d) => [d.id, d.attempts.length])).toEqual([["msg_0001", 1]]);
      const ok: DeliveryAttempt = { at: at(61), status: 204, error: null, durationMs: 5 };
      expect(
        await store.deliveries.record("msg_0001", "b", ok, { state: "delivered", nextAttemptAt: null }),
      ).toBe(true);
      // Read back by another store instance (a process started later).
      const later = reopen();
      cleanup.push(() => later.close());
      const [stored] = await later.deliveries.list("run-a");
      expect(stored).toMatchObject({
        id: "msg_0001",
        state: "delivered",
        nextAttemptAt: null,
        deliveredAt: at(61),
        attempts: [failed(0, 503, "HTTP 503"), ok],
      });
      expect(await later.deliveries.nextDue()).toBeNull();
      expect(await later.deliveries.lease({ now: at(9999), until: at(99999), token: "c", limit: 9 })).toEqual(
        [],
      );
    });

    it("hands each delivery to one of several store instances leasing at once", async () => {
      const { store, reopen } = await open();
      await store.deliveries.add(Array.from({ length: 30 }, (_, i) => delivery(i + 1)));
      const instances = [store, reopen(), reopen()];
      cleanup.push(async () => {
        await instances[1]!.close();
        await instances[2]!.close();
      });
      const leases = await Promise.all(
        ["a", "b", "c", "d", "e", "f"].map((token, i) =>
          instances[i % 3]!.deliveries.lease({ now: at(0), until: at(30), token, limit: 8 }),
        ),
      );
      const ids = leases.flatMap((leased) => leased.map((d) => d.id));
      expect(ids.length).toBe(30);
      expect(new Set(ids).size).toBe(30);
    });
  });
}
