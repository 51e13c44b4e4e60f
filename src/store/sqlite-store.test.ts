import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import type { DossierEvent, EventInput } from "../core/events.ts";
import { openDatabase, schemaVersion } from "./database.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";
import { DATABASE_FILE, openSqliteStore } from "./sqlite-store.ts";
import type { NewRun, Store } from "./types.ts";

let dir: string;
const opened: Array<{ close(): void }> = [];

beforeEach(() => {
  dir = fs.mkdtempSync(join(os.tmpdir(), "dossier-"));
});

afterEach(() => {
  for (const handle of opened.splice(0)) handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(home = dir): Store & { db: DatabaseSync } {
  const store = openSqliteStore({ home, now: () => "2026-01-01T00:00:00.000Z" });
  opened.push(store);
  return store;
}

function newRun(id: string, createdAt = "2026-01-01T00:00:00.000Z", query = `query of ${id}`): NewRun {
  return { id, query, strategy: "graph", options: { sources: "web", depth: 2 }, createdAt };
}

/** Runs `fn`, expecting a DossierError with `code`; returns it. */
function dossierErrorOf(fn: () => unknown, code: string): DossierError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DossierError);
  expect((thrown as DossierError).code).toBe(code);
  return thrown as DossierError;
}

const phase = (name: string): EventInput => ({ type: "phase", phase: name });
const TS = "2026-01-01T00:00:01.000Z";

describe("openSqliteStore / openDatabase", () => {
  it("creates dossier.db in the data directory at the current schema version", () => {
    const home = join(dir, "nested", "home");
    const store = open(home);
    expect(store.location).toBe(join(home, DATABASE_FILE));
    expect(DATABASE_FILE).toBe("dossier.db");
    expect(fs.existsSync(join(home, "dossier.db"))).toBe(true);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    const tables = (
      store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    expect(tables).toEqual(["cache", "events", "runs", "steps", "webhook_deliveries"]);
    expect(store.kind).toBe("sqlite");
  });

  it("keeps runs, events, cache entries and journal entries across a reopen", async () => {
    const first = open();
    await first.runs.create(newRun("r1"));
    await first.events.append("r1", phase("plan"), TS);
    await first.cache.set("search", "k", { hits: [1, 2] }, { nowMs: 0 });
    await first.journal("r1").put("llm:abc#1", { kind: "llm", value: { text: "hi" } });
    await first.close();
    await first.close(); // closing twice is harmless

    const second = open();
    expect(schemaVersion(second.db)).toBe(SCHEMA_VERSION);
    expect((await second.runs.get("r1"))?.query).toBe("query of r1");
    expect((await second.events.list("r1")).map((e) => [e.seq, e.type])).toEqual([[1, "phase"]]);
    expect(await second.events.lastSeq("r1")).toBe(1);
    expect(await second.cache.get("search", "k", 1)).toEqual({ hits: [1, 2] });
    expect(await second.journal("r1").get("llm:abc#1")).toEqual({ kind: "llm", value: { text: "hi" } });
  });

  it("refuses a database written by a newer Dossier and tells the user to upgrade", () => {
    const path = join(dir, DATABASE_FILE);
    const raw = new DatabaseSync(path);
    raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();

    const error = dossierErrorOf(() => openSqliteStore({ home: dir }), "STORE_ERROR");
    expect(error.message).toMatch(/upgrade/i);
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect(error.details).toMatchObject({ path, version: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION });

    // The database is left untouched.
    const check = new DatabaseSync(path);
    expect(schemaVersion(check)).toBe(SCHEMA_VERSION + 1);
    expect(check.prepare("SELECT count(*) AS n FROM sqlite_master").get()).toEqual({ n: 0 });
    check.close();
  });

  it("applies migrations in order, each once, and records the version", () => {
    const path = join(dir, "custom.db");
    const m1 =
      "CREATE TABLE log (n INTEGER PRIMARY KEY, tag TEXT NOT NULL); INSERT INTO log (tag) VALUES ('m1');";
    const m2 = "INSERT INTO log (tag) VALUES ('m2');";
    const m3 = "ALTER TABLE log ADD COLUMN extra TEXT; INSERT INTO log (tag, extra) VALUES ('m3', 'x');";

    const db = openDatabase({ path, migrations: [m1, m2] });
    expect(schemaVersion(db)).toBe(2);
    expect(db.prepare("SELECT tag FROM log ORDER BY n").all()).toEqual([{ tag: "m1" }, { tag: "m2" }]);
    db.close();

    // Reopening with one more migration runs only the new one (m1 would fail if it ran again).
    const again = openDatabase({ path, migrations: [m1, m2, m3] });
    expect(schemaVersion(again)).toBe(3);
    expect(again.prepare("SELECT tag, extra FROM log ORDER BY n").all()).toEqual([
      { tag: "m1", extra: null },
      { tag: "m2", extra: null },
      { tag: "m3", extra: "x" },
    ]);
    again.close();
  });

  it("rolls back a failing migration and keeps the earlier ones", () => {
    const path = join(dir, "custom.db");
    const m1 = "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);";
    const bad = "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (2); INSERT INTO missing VALUES (1);";

    const error = dossierErrorOf(() => openDatabase({ path, migrations: [m1, bad] }), "STORE_ERROR");
    expect(error.message).toContain("schema version 2");
    expect(error.message).toContain("missing");
    expect(error.details).toMatchObject({ path, version: 2 });
    expect(error.cause).toBeInstanceOf(Error);

    const db = openDatabase({ path, migrations: [m1] });
    expect(schemaVersion(db)).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: "a" }]);
    expect(db.prepare("SELECT x FROM a").all()).toEqual([{ x: 1 }]);
    db.close();
  });

  it("leaves version 0 and no tables when the first migration fails", () => {
    const path = join(dir, "custom.db");
    dossierErrorOf(
      () => openDatabase({ path, migrations: ["CREATE TABLE a (x INTEGER); SELECT * FROM nowhere;"] }),
      "STORE_ERROR",
    );
    const db = new DatabaseSync(path);
    expect(schemaVersion(db)).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master").get()).toEqual({ n: 0 });
    db.close();
  });

  it("opens a throwaway in-memory store", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    opened.push(store);
    expect(store.location).toBe(":memory:");
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    await store.runs.create(newRun("m"));
    expect((await store.runs.get("m"))?.id).toBe("m");
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

// What every backend does (runs, ownership, events, journal, cache) is the store contract,
// run on SQLite by sqlite-contract.test.ts; what follows is particular to SQLite.
describe("SQLite particulars", () => {
  it("names the foreign key when refusing an event for a run that does not exist", async () => {
    const { runs, events } = open();
    await runs.create(newRun("r1"));
    const seen: DossierEvent[] = [];
    events.subscribe("ghost", (event) => seen.push(event));
    let thrown: unknown;
    try {
      await events.append("ghost", phase("x"), TS);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DossierError);
    expect((thrown as DossierError).code).toBe("STORE_ERROR");
    expect((thrown as DossierError).message).toContain("ghost");
    expect((thrown as DossierError).message).toMatch(/foreign key/i);
    expect(seen).toEqual([]);
  });

  it("calls subscribers before append returns (appends run to completion in the call)", () => {
    const { runs, events } = open();
    void runs.create(newRun("r1"));
    const seen: number[] = [];
    events.subscribe("r1", (event) => seen.push(event.seq));
    void events.append("r1", phase("a"), TS);
    void events.append("r1", phase("b"), TS);
    expect(seen).toEqual([1, 2]);
  });

  it("stamps journal rows with the store's clock", async () => {
    const store = open();
    await store.runs.create(newRun("r1"));
    await store.runs.create(newRun("r2"));
    await store.journal("r1").put("llm:h#1", { kind: "tool", value: [1, 2, 3] });
    await store.journal("r2").put("llm:h#1", { kind: "llm", value: "two" });
    const rows = store.db.prepare("SELECT run_id, key, created_at FROM steps ORDER BY run_id").all();
    expect(rows).toEqual([
      { run_id: "r1", key: "llm:h#1", created_at: "2026-01-01T00:00:00.000Z" },
      { run_id: "r2", key: "llm:h#1", created_at: "2026-01-01T00:00:00.000Z" },
    ]);
  });
});
