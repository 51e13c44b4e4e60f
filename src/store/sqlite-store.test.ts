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
    expect(tables).toEqual(["cache", "events", "runs", "steps"]);
  });

  it("keeps runs, events, cache entries and journal entries across a reopen", () => {
    const first = open();
    first.runs.create(newRun("r1"));
    first.events.append("r1", phase("plan"), TS);
    first.cache.set("search", "k", { hits: [1, 2] }, { nowMs: 0 });
    first.journal("r1").put("llm:abc#1", { kind: "llm", value: { text: "hi" } });
    first.close();
    first.close(); // closing twice is harmless

    const second = open();
    expect(schemaVersion(second.db)).toBe(SCHEMA_VERSION);
    expect(second.runs.get("r1")?.query).toBe("query of r1");
    expect(second.events.list("r1").map((e) => [e.seq, e.type])).toEqual([[1, "phase"]]);
    expect(second.events.lastSeq("r1")).toBe(1);
    expect(second.cache.get("search", "k", 1)).toEqual({ hits: [1, 2] });
    expect(second.journal("r1").get("llm:abc#1")).toEqual({ kind: "llm", value: { text: "hi" } });
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

  it("opens a throwaway in-memory store", () => {
    const store = openSqliteStore({ home: ":memory:" });
    opened.push(store);
    expect(store.location).toBe(":memory:");
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    store.runs.create(newRun("m"));
    expect(store.runs.get("m")?.id).toBe("m");
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("RunStore", () => {
  it("creates a running run with no outcome and reads it back", () => {
    const { runs } = open();
    const created = runs.create(newRun("r1", "2026-02-03T04:05:06.000Z", "what is X?"));
    expect(created).toEqual({
      id: "r1",
      query: "what is X?",
      strategy: "graph",
      options: { sources: "web", depth: 2 },
      status: "running",
      createdAt: "2026-02-03T04:05:06.000Z",
      updatedAt: "2026-02-03T04:05:06.000Z",
      finishedAt: null,
      stopReason: null,
      usage: null,
      error: null,
      owner: null,
      heartbeatAt: null,
    });
    expect(runs.get("r1")).toEqual(created);
    expect(runs.get("r2")).toBeUndefined();
  });

  it("records the owner of a run with a first heartbeat, and later heartbeats", () => {
    const { runs } = open();
    const owner = { host: "h1", pid: 42, startedAt: "2026-02-03T04:00:00.000Z" };
    const created = runs.create({ ...newRun("r1", "2026-02-03T04:05:06.000Z"), owner });
    expect(created).toMatchObject({ owner, heartbeatAt: "2026-02-03T04:05:06.000Z" });
    const beat = runs.update("r1", {
      updatedAt: "2026-02-03T04:05:08.000Z",
      heartbeatAt: "2026-02-03T04:05:08.000Z",
    });
    expect(beat).toMatchObject({ status: "running", heartbeatAt: "2026-02-03T04:05:08.000Z" });
    expect(runs.update("r1", { updatedAt: "x", status: "interrupted" }).status).toBe("interrupted");
  });

  it("refuses a second run with the same id", () => {
    const { runs } = open();
    runs.create(newRun("r1"));
    const error = dossierErrorOf(() => runs.create(newRun("r1")), "STORE_ERROR");
    expect(error.message).toContain("r1");
  });

  it("updates only the given fields and can clear them with null", () => {
    const { runs } = open();
    runs.create(newRun("r1"));
    const usage = { inputTokens: 120, outputTokens: null, costUsd: null, llmCalls: 2, toolCalls: 3 };
    const done = runs.update("r1", {
      updatedAt: "2026-01-01T00:10:00.000Z",
      status: "failed",
      finishedAt: "2026-01-01T00:10:00.000Z",
      stopReason: "error",
      usage,
      error: { code: "PROVIDER_ERROR", message: "boom" },
    });
    expect(done).toMatchObject({
      status: "failed",
      updatedAt: "2026-01-01T00:10:00.000Z",
      finishedAt: "2026-01-01T00:10:00.000Z",
      stopReason: "error",
      usage,
      error: { code: "PROVIDER_ERROR", message: "boom" },
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    expect(runs.get("r1")).toEqual(done);

    const touched = runs.update("r1", { updatedAt: "2026-01-01T00:11:00.000Z" });
    expect(touched).toEqual({ ...done, updatedAt: "2026-01-01T00:11:00.000Z" });

    const cleared = runs.update("r1", {
      updatedAt: "2026-01-01T00:12:00.000Z",
      status: "running",
      finishedAt: null,
      stopReason: null,
      usage: null,
      error: null,
    });
    expect(cleared).toMatchObject({
      status: "running",
      finishedAt: null,
      stopReason: null,
      usage: null,
      error: null,
    });
  });

  it("fails with NOT_FOUND when updating an unknown run", () => {
    const { runs } = open();
    runs.create(newRun("r1"));
    const error = dossierErrorOf(
      () => runs.update("nope", { updatedAt: TS, status: "completed" }),
      "NOT_FOUND",
    );
    expect(error.details).toEqual({ runId: "nope" });
    expect(runs.get("r1")?.status).toBe("running");
  });

  it("lists newest first, filters by status and honours the limit", () => {
    const { runs } = open();
    runs.create(newRun("a", "2026-01-01T00:00:02.000Z"));
    runs.create(newRun("b", "2026-01-01T00:00:01.000Z"));
    runs.create(newRun("c", "2026-01-01T00:00:03.000Z"));
    runs.create(newRun("d", "2026-01-01T00:00:03.000Z")); // same time as c: ties by id, descending
    runs.update("a", { updatedAt: TS, status: "completed" });
    runs.update("d", { updatedAt: TS, status: "completed" });
    runs.update("b", { updatedAt: TS, status: "failed" });

    expect(runs.list().map((r) => r.id)).toEqual(["d", "c", "a", "b"]);
    expect(runs.list({ limit: 2 }).map((r) => r.id)).toEqual(["d", "c"]);
    expect(runs.list({ status: "completed" }).map((r) => r.id)).toEqual(["d", "a"]);
    expect(runs.list({ status: "completed", limit: 1 }).map((r) => r.id)).toEqual(["d"]);
    expect(runs.list({ status: "running" }).map((r) => r.id)).toEqual(["c"]);
    expect(runs.list({ status: "cancelled" })).toEqual([]);
  });

  it("lists at most 50 runs by default", () => {
    const { runs } = open();
    for (let i = 0; i < 52; i++) runs.create(newRun(`r${String(i).padStart(2, "0")}`));
    const listed = runs.list();
    expect(listed).toHaveLength(50);
    expect(listed[0]!.id).toBe("r51");
    expect(listed.at(-1)!.id).toBe("r02");
  });

  describe("resolveId", () => {
    it("resolves an exact id and a unique prefix", () => {
      const { runs } = open();
      runs.create(newRun("20260101-000000-aaaaaa"));
      runs.create(newRun("20260101-000000-abcdef"));
      runs.create(newRun("20260102-000000-zzzzzz"));
      expect(runs.resolveId("20260101-000000-abcdef")).toBe("20260101-000000-abcdef");
      expect(runs.resolveId("20260101-000000-ab")).toBe("20260101-000000-abcdef");
      expect(runs.resolveId("20260102")).toBe("20260102-000000-zzzzzz");
    });

    it("resolves a prefix of an id's random suffix", () => {
      const { runs } = open();
      runs.create(newRun("20260101-000000-s3skuk"));
      runs.create(newRun("20260101-000001-q8xyzw"));
      expect(runs.resolveId("s3sk")).toBe("20260101-000000-s3skuk");
      expect(runs.resolveId("q8xyzw")).toBe("20260101-000001-q8xyzw");
      expect(() => runs.resolveId("zz")).toThrow(/no run matches/);
    });

    it("prefers an exact id over longer ids it is a prefix of", () => {
      const { runs } = open();
      for (const id of ["run", "run-1", "run-2", "run-3", "run-4"]) runs.create(newRun(id));
      expect(runs.resolveId("run")).toBe("run");
    });

    it("prefers an exact id even when more than three ids match it case-insensitively", () => {
      const { runs } = open();
      for (const id of ["RUN-1", "RUN-2", "RUN-3", "run"]) runs.create(newRun(id));
      expect(runs.resolveId("run")).toBe("run");
    });

    it("rejects an ambiguous prefix with INPUT_INVALID listing the matches", () => {
      const { runs } = open();
      runs.create(newRun("20260101-000000-abc111"));
      runs.create(newRun("20260101-000000-abc222"));
      runs.create(newRun("20260101-000000-xyz333"));
      const error = dossierErrorOf(() => runs.resolveId("20260101-000000-abc"), "INPUT_INVALID");
      expect(error.details).toEqual({
        prefix: "20260101-000000-abc",
        matches: ["20260101-000000-abc111", "20260101-000000-abc222"],
      });
      expect(error.message).toContain("20260101-000000-abc111");
      expect(error.message).toContain("20260101-000000-abc222");
      expect(error.message).not.toContain("xyz333");
      expect(error.message).not.toContain("…");
    });

    it("lists at most three matches and says there are more", () => {
      const { runs } = open();
      for (const id of ["p1", "p2", "p3", "p4", "p5"]) runs.create(newRun(id));
      const error = dossierErrorOf(() => runs.resolveId("p"), "INPUT_INVALID");
      expect(error.details.matches).toEqual(["p1", "p2", "p3"]);
      expect(error.message).toContain("p1, p2, p3, …");
    });

    it("fails with NOT_FOUND when nothing matches", () => {
      const { runs } = open();
      runs.create(newRun("abc"));
      const error = dossierErrorOf(() => runs.resolveId("abd"), "NOT_FOUND");
      expect(error.details).toEqual({ prefix: "abd" });
      expect(error.message).toContain('"abd"');
    });

    it("treats LIKE wildcards in the prefix literally", () => {
      const { runs } = open();
      runs.create(newRun("abc-1"));
      runs.create(newRun("a_c-2"));
      runs.create(newRun("x%y-3"));
      runs.create(newRun("back\\slash-4"));
      // `%` and `_` would match anything / any one character if they were not escaped.
      dossierErrorOf(() => runs.resolveId("%"), "NOT_FOUND");
      dossierErrorOf(() => runs.resolveId("_"), "NOT_FOUND");
      dossierErrorOf(() => runs.resolveId("a%"), "NOT_FOUND");
      expect(runs.resolveId("a_")).toBe("a_c-2");
      expect(runs.resolveId("x%")).toBe("x%y-3");
      expect(runs.resolveId("ab")).toBe("abc-1");
      expect(runs.resolveId("back\\")).toBe("back\\slash-4");
      dossierErrorOf(() => runs.resolveId("\\"), "NOT_FOUND");
    });
  });
});

describe("EventLog", () => {
  it("stamps seq 1, 2, 3… per run, independently across runs", () => {
    const { runs, events } = open();
    runs.create(newRun("r1"));
    runs.create(newRun("r2"));
    expect(events.lastSeq("r1")).toBe(0);

    const a1 = events.append("r1", phase("a"), TS);
    const b1 = events.append("r2", phase("b"), TS);
    const a2 = events.append("r1", phase("c"), TS);
    const a3 = events.append("r1", { type: "warning", code: "W", message: "careful" }, TS);
    const b2 = events.append("r2", phase("d"), TS);

    expect([a1.seq, a2.seq, a3.seq]).toEqual([1, 2, 3]);
    expect([b1.seq, b2.seq]).toEqual([1, 2]);
    expect(a1).toEqual({ type: "phase", phase: "a", runId: "r1", seq: 1, ts: TS });
    expect(events.lastSeq("r1")).toBe(3);
    expect(events.lastSeq("r2")).toBe(2);
    expect(events.list("r1").map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events.list("r2").map((e) => e.seq)).toEqual([1, 2]);
    expect(events.list("r1")).toEqual([a1, a2, a3]);
  });

  it("lists after a seq, up to a limit, and by type", () => {
    const { runs, events } = open();
    runs.create(newRun("r1"));
    for (let i = 1; i <= 6; i++) {
      events.append(
        "r1",
        i % 2 === 0 ? { type: "warning", code: `W${i}`, message: "m" } : phase(`p${i}`),
        `2026-01-01T00:00:0${i}.000Z`,
      );
    }
    const seqs = (list: DossierEvent[]) => list.map((e) => e.seq);
    expect(seqs(events.list("r1", { afterSeq: 4 }))).toEqual([5, 6]);
    expect(seqs(events.list("r1", { limit: 2 }))).toEqual([1, 2]);
    expect(seqs(events.list("r1", { afterSeq: 1, limit: 3 }))).toEqual([2, 3, 4]);
    expect(seqs(events.list("r1", { types: ["warning"] }))).toEqual([2, 4, 6]);
    expect(seqs(events.list("r1", { types: ["warning", "phase"] }))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seqs(events.list("r1", { types: [] }))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seqs(events.list("r1", { types: ["warning"], afterSeq: 2, limit: 1 }))).toEqual([4]);
    expect(seqs(events.list("r1", { types: ["run-end"] }))).toEqual([]);
    expect(seqs(events.list("r1", { afterSeq: 6 }))).toEqual([]);
    expect(events.list("r1", { limit: 1 })[0]!.ts).toBe("2026-01-01T00:00:01.000Z");
    expect(events.list("other")).toEqual([]);
  });

  it("round-trips events through the schema, keeping unknown figures null", () => {
    const { runs, events } = open();
    runs.create(newRun("r1"));
    const llmEnd: EventInput = {
      type: "llm-end",
      callId: "c1",
      role: "writer",
      model: "openai:gpt-4o",
      key: "llm:abc#1",
      ok: true,
      replayed: false,
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
      latencyMs: 12,
      formatErrors: 0,
      retries: 1,
    };
    const runEnd: EventInput = {
      type: "run-end",
      status: "completed",
      stopReason: "done",
      usage: { inputTokens: null, outputTokens: 5, costUsd: null, llmCalls: 1, toolCalls: 0 },
    };
    const plan: EventInput = {
      type: "plan-update",
      iteration: 2,
      graph: { nodes: [{ id: "T-1", deps: [] }] },
      diff: { added: ["T-1"] },
    };
    const stored = [llmEnd, runEnd, plan].map((event) => events.append("r1", event, TS));
    const listed = events.list("r1");
    expect(listed).toEqual(stored);
    expect(listed[0]).toEqual({ ...llmEnd, runId: "r1", seq: 1, ts: TS });
    const first = listed[0] as Extract<DossierEvent, { type: "llm-end" }>;
    expect(first.inputTokens).toBeNull();
    expect(first.outputTokens).toBeNull();
    expect(first.costUsd).toBeNull();
    expect(listed[1]).toEqual({ ...runEnd, runId: "r1", seq: 2, ts: TS });
    expect(listed[2]).toEqual({ ...plan, runId: "r1", seq: 3, ts: TS });
  });

  it("notifies subscribers of that run only, until they unsubscribe", () => {
    const { runs, events } = open();
    runs.create(newRun("r1"));
    runs.create(newRun("r2"));
    events.append("r1", phase("before"), TS);

    const seen: DossierEvent[] = [];
    const other: DossierEvent[] = [];
    const unsubscribe = events.subscribe("r1", (event) => seen.push(event));
    const unsubscribeOther = events.subscribe("r1", (event) => other.push(event));
    const e2 = events.append("r1", phase("x"), TS);
    events.append("r2", phase("elsewhere"), TS);
    const e3 = events.append("r1", phase("y"), TS);
    expect(seen).toEqual([e2, e3]);
    expect(seen.map((e) => [e.runId, e.seq])).toEqual([
      ["r1", 2],
      ["r1", 3],
    ]);

    unsubscribe();
    unsubscribe(); // idempotent
    const e4 = events.append("r1", phase("z"), TS);
    expect(seen).toEqual([e2, e3]);
    expect(other).toEqual([e2, e3, e4]);

    unsubscribeOther();
    events.append("r1", phase("after"), TS);
    expect(other).toEqual([e2, e3, e4]);
    expect(events.list("r1").map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("refuses an event for a run that does not exist", () => {
    const { runs, events } = open();
    runs.create(newRun("r1"));
    const seen: DossierEvent[] = [];
    events.subscribe("ghost", (event) => seen.push(event));
    const error = dossierErrorOf(() => events.append("ghost", phase("x"), TS), "STORE_ERROR");
    expect(error.message).toContain("ghost");
    expect(error.message).toMatch(/foreign key/i);
    expect(seen).toEqual([]);
    expect(events.lastSeq("ghost")).toBe(0);
    expect(events.list("ghost")).toEqual([]);
  });

  it("keeps a gapless sequence when two store instances append to the same run", () => {
    const a = open();
    const b = open();
    a.runs.create(newRun("shared"));
    const stamped: number[] = [];
    for (let i = 0; i < 20; i++) {
      const writer = i % 2 === 0 ? a : b;
      stamped.push(writer.events.append("shared", phase(`p${i}`), TS).seq);
    }
    const expected = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(stamped).toEqual(expected);
    for (const store of [a, b]) {
      const listed = store.events.list("shared");
      expect(listed.map((e) => e.seq)).toEqual(expected);
      expect(listed.map((e) => (e as Extract<DossierEvent, { type: "phase" }>).phase)).toEqual(
        expected.map((n) => `p${n - 1}`),
      );
      expect(store.events.lastSeq("shared")).toBe(20);
    }
  });
});

describe("Cache", () => {
  it("gets, sets, overwrites and deletes values per namespace", () => {
    const { cache } = open();
    expect(cache.get("ns", "k", 0)).toBeUndefined();
    cache.set("ns", "k", { a: [1, "two", null], b: true }, { nowMs: 0 });
    cache.set("other", "k", "other value", { nowMs: 0 });
    expect(cache.get("ns", "k", 0)).toEqual({ a: [1, "two", null], b: true });
    expect(cache.get("other", "k", 0)).toBe("other value");

    cache.set("ns", "k", 42, { nowMs: 5 });
    expect(cache.get("ns", "k", 5)).toBe(42);

    cache.delete("ns", "k");
    expect(cache.get("ns", "k", 5)).toBeUndefined();
    expect(cache.get("other", "k", 5)).toBe("other value");
    cache.delete("ns", "never-set"); // no error
  });

  it("stores falsy JSON values as hits", () => {
    const { cache } = open();
    cache.set("ns", "zero", 0, { nowMs: 0 });
    cache.set("ns", "empty", "", { nowMs: 0 });
    cache.set("ns", "null", null, { nowMs: 0 });
    expect(cache.get("ns", "zero", 0)).toBe(0);
    expect(cache.get("ns", "empty", 0)).toBe("");
    expect(cache.get("ns", "null", 0)).toBeNull();
  });

  it("expires entries relative to the nowMs it is given, not the wall clock", () => {
    const { cache } = open();
    cache.set("ns", "k", "v", { nowMs: 1_000, ttlMs: 500 });
    cache.set("ns", "forever", "v", { nowMs: 1_000 });
    expect(cache.get("ns", "k", 1_000)).toBe("v");
    expect(cache.get("ns", "k", 1_499)).toBe("v");
    expect(cache.get("ns", "k", 1_500)).toBeUndefined();
    // An expired read removes the entry: an earlier clock no longer sees it.
    expect(cache.get("ns", "k", 1_000)).toBeUndefined();
    expect(cache.get("ns", "forever", Number.MAX_SAFE_INTEGER)).toBe("v");
  });

  it("replaces the expiry when a key is overwritten", () => {
    const { cache } = open();
    cache.set("ns", "k", "old", { nowMs: 0, ttlMs: 10 });
    cache.set("ns", "k", "new", { nowMs: 0 });
    expect(cache.get("ns", "k", 1_000_000)).toBe("new");
    cache.set("ns", "k", "short", { nowMs: 100, ttlMs: 10 });
    expect(cache.get("ns", "k", 109)).toBe("short");
    expect(cache.get("ns", "k", 110)).toBeUndefined();
  });

  it("purges expired entries and counts them", () => {
    const { cache } = open();
    cache.set("a", "1", 1, { nowMs: 0, ttlMs: 10 });
    cache.set("a", "2", 2, { nowMs: 0, ttlMs: 20 });
    cache.set("b", "3", 3, { nowMs: 0, ttlMs: 30 });
    cache.set("b", "4", 4, { nowMs: 0 });
    expect(cache.purgeExpired(5)).toBe(0);
    expect(cache.purgeExpired(20)).toBe(2);
    expect(cache.purgeExpired(20)).toBe(0);
    expect(cache.get("b", "3", 0)).toBe(3);
    expect(cache.get("a", "1", 0)).toBeUndefined();
    expect(cache.purgeExpired(Number.MAX_SAFE_INTEGER)).toBe(1);
    expect(cache.get("b", "4", Number.MAX_SAFE_INTEGER)).toBe(4);
  });
});

describe("journal", () => {
  it("stores entries per run, isolated between runs, and overwrites by key", () => {
    const store = open();
    store.runs.create(newRun("r1"));
    store.runs.create(newRun("r2"));
    const j1 = store.journal("r1");
    const j2 = store.journal("r2");

    expect(j1.get("llm:h#1")).toBeUndefined();
    j1.put("llm:h#1", { kind: "llm", value: { text: "one", usage: { inputTokens: null } } });
    j2.put("llm:h#1", { kind: "llm", value: "two" });
    expect(j1.get("llm:h#1")).toEqual({ kind: "llm", value: { text: "one", usage: { inputTokens: null } } });
    expect(j2.get("llm:h#1")).toEqual({ kind: "llm", value: "two" });
    expect(j1.get("llm:h#2")).toBeUndefined();

    j1.put("llm:h#1", { kind: "tool", value: [1, 2, 3] });
    expect(j1.get("llm:h#1")).toEqual({ kind: "tool", value: [1, 2, 3] });
    expect(j2.get("llm:h#1")).toEqual({ kind: "llm", value: "two" });
    expect(store.journal("r1").get("llm:h#1")).toEqual({ kind: "tool", value: [1, 2, 3] });

    const rows = store.db.prepare("SELECT run_id, key, created_at FROM steps ORDER BY run_id").all();
    expect(rows).toEqual([
      { run_id: "r1", key: "llm:h#1", created_at: "2026-01-01T00:00:00.000Z" },
      { run_id: "r2", key: "llm:h#1", created_at: "2026-01-01T00:00:00.000Z" },
    ]);
  });
});
