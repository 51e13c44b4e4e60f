/**
 * The store contract: what every backend of the store port (`src/store/types.ts`) must do, as
 * one suite each backend's test file runs against a fresh, empty store. Runs (records, updates,
 * listing, id prefixes, each version of a report held by one run), ownership (claims, heartbeats, take-over of a run whose heartbeat went
 * stale), cancellation requests, the event log (contiguous `seq` per run, the order of appends
 * issued without waiting, several store instances and several processes appending to one run,
 * queries, subscriptions), the step journal (isolation, overwrite, replay after a reopen) and
 * the cache (expiry by the caller's clock, purge); queued runs are in `queued-contract.ts`.
 */

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DossierError } from "../../src/core/errors.ts";
import type { DossierEvent, EventInput } from "../../src/core/events.ts";
import type { NewRun, Store } from "../../src/store/types.ts";
import { describeQueuedRuns } from "./queued-contract.ts";

/** How another process opens the same store (see `openStore`). */
export interface StoreSpec {
  home: string;
  databaseUrl?: string;
}

/** A fresh, empty store of one backend. */
export interface FreshStore {
  spec: StoreSpec;
  /** Opens a store instance on it (call again for a second instance, or after a close). */
  open(): Store;
  /** Removes it (files, schema). */
  dispose(): Promise<void>;
}

/** A backend under test. */
export interface StoreBackend {
  name: string;
  fresh(): Promise<FreshStore>;
}

const CHILD = fileURLToPath(new URL("./store-child.ts", import.meta.url));
const TS = "2026-01-01T00:00:01.000Z";
const phase = (name: string): EventInput => ({ type: "phase", phase: name });

function newRun(id: string, createdAt = "2026-01-01T00:00:00.000Z", query = `query of ${id}`): NewRun {
  return { id, query, strategy: "graph", options: { sources: "web", depth: 2 }, createdAt };
}

/** Awaits `promise`, expecting a DossierError with `code`; returns it. */
async function rejection(promise: Promise<unknown>, code: string): Promise<DossierError> {
  let thrown: unknown;
  try {
    await promise;
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DossierError);
  expect((thrown as DossierError).code).toBe(code);
  return thrown as DossierError;
}

/**
 * Runs the store-child script once per order, all at once: each opens the store and says it is
 * ready, then all are told to go together. Resolves with their JSON outcomes, in order.
 */
async function children(
  spec: StoreSpec,
  orders: Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  const procs = orders.map((order) =>
    spawn(process.execPath, [CHILD, JSON.stringify({ store: spec, ...order })], {
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  const outcomes = procs.map(
    (proc) =>
      new Promise<{ ready: Promise<void>; outcome: Promise<Record<string, unknown>> }>((resolveStarted) => {
        let out = "";
        let err = "";
        let onReady!: () => void;
        const ready = new Promise<void>((r) => {
          onReady = r;
        });
        const outcome = new Promise<Record<string, unknown>>((resolve, reject) => {
          proc.stdout.on("data", (d) => {
            out += d;
            if (out.startsWith("ready\n")) onReady();
          });
          proc.stderr.on("data", (d) => {
            err += d;
          });
          proc.on("error", reject);
          proc.on("close", (code) => {
            onReady();
            if (code === 0) resolve(JSON.parse(out.trim().split("\n").at(-1)!));
            else reject(new Error(`store child exited ${code}: ${err}`));
          });
        });
        resolveStarted({ ready, outcome });
      }),
  );
  const started = await Promise.all(outcomes);
  await Promise.all(started.map((s) => s.ready));
  for (const proc of procs) proc.stdin.end("go\n");
  return Promise.all(started.map((s) => s.outcome));
}

/** Runs one store child with `order`; resolves with its JSON outcome. */
async function child(spec: StoreSpec, order: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await children(spec, [order]))[0]!;
}

/** Registers the contract suite for `backend`. */
export function describeStoreContract(backend: StoreBackend): void {
  describe(`store contract: ${backend.name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /** A fresh store; its instances are closed and it is removed after the test. */
    async function fresh(): Promise<{ store: Store; another(): Store; spec: StoreSpec }> {
      const made = await backend.fresh();
      cleanups.push(() => made.dispose());
      const open = () => {
        const store = made.open();
        cleanups.push(() => store.close());
        return store;
      };
      const store = open();
      await store.ready();
      return { store, another: open, spec: made.spec };
    }

    describe("runs", () => {
      it("creates a running run with no outcome and reads it back", async () => {
        const { runs } = (await fresh()).store;
        const created = await runs.create(newRun("r1", "2026-02-03T04:05:06.000Z", "what is X?"));
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
        expect(await runs.get("r1")).toEqual(created);
        expect(await runs.get("r2")).toBeUndefined();
      });

      it("refuses a second run with the same id", async () => {
        const { runs } = (await fresh()).store;
        await runs.create(newRun("r1"));
        const error = await rejection(runs.create(newRun("r1")), "STORE_ERROR");
        expect(error.message).toContain("r1");
      });

      it("holds each version of a report by one run, whatever its status", async () => {
        const { runs } = (await fresh()).store;
        const owner = { host: "h1", pid: 42, startedAt: "2026-02-03T04:00:00.000Z" };
        const version = (id: string, reportRoot: string, v: number, queued = false): NewRun => ({
          ...newRun(id),
          strategy: "refresh",
          options: { strategyOptions: { refreshOf: reportRoot, reportRoot, version: v } },
          ...(queued ? { queued: true } : { owner }),
        });
        await runs.create(version("v2", "root", 2));
        const error = await rejection(runs.create(version("v2-again", "root", 2)), "CONFLICT");
        expect(error.message).toContain("version 2");
        expect(error.details).toMatchObject({ holder: "v2", reportRoot: "root", version: 2 });
        expect(await runs.get("v2-again")).toBeUndefined();
        // A failed holder still holds its version.
        await runs.update("v2", { updatedAt: TS, status: "failed" });
        await rejection(runs.create(version("v2-later", "root", 2)), "CONFLICT");
        // Another version, another report, and runs naming no report are free.
        await runs.create(version("v3", "root", 3));
        await runs.create(version("other-v2", "other", 2));
        await runs.create(newRun("plain-1"));
        await runs.create(newRun("plain-2"));
        // A queued run taken up keeps its version; a second queued one is refused at once.
        await runs.create(version("q4", "root", 4, true));
        await rejection(runs.create(version("q4-again", "root", 4, true)), "CONFLICT");
        expect((await runs.create(version("q4", "root", 4))).status).toBe("running");
      });

      it("lets exactly one of several processes create one version of a report", async () => {
        const { store, spec } = await fresh();
        const options = { strategyOptions: { refreshOf: "root", reportRoot: "root", version: 2 } };
        const outcomes = await children(
          spec,
          [1, 2, 3, 4].map((i) => ({ action: "start", runId: `refresh-${i}`, options })),
        );
        const winners = outcomes.filter((o) => o.started === true);
        expect(winners).toHaveLength(1);
        expect(outcomes.filter((o) => o.started === false).map((o) => o.code)).toEqual([
          "CONFLICT",
          "CONFLICT",
          "CONFLICT",
        ]);
        const created = await store.runs.list();
        expect(created.map((r) => r.owner?.pid)).toEqual([winners[0]!.pid]);
      }, 30_000);

      it("updates only the given fields and can clear them with null", async () => {
        const { runs } = (await fresh()).store;
        await runs.create(newRun("r1"));
        const usage = { inputTokens: 120, outputTokens: null, costUsd: null, llmCalls: 2, toolCalls: 3 };
        const done = await runs.update("r1", {
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
        expect(await runs.get("r1")).toEqual(done);
        const touched = await runs.update("r1", { updatedAt: "2026-01-01T00:11:00.000Z" });
        expect(touched).toEqual({ ...done, updatedAt: "2026-01-01T00:11:00.000Z" });
        const cleared = await runs.update("r1", {
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

      it("fails with NOT_FOUND when updating an unknown run", async () => {
        const { runs } = (await fresh()).store;
        await runs.create(newRun("r1"));
        const error = await rejection(
          runs.update("nope", { updatedAt: TS, status: "completed" }),
          "NOT_FOUND",
        );
        expect(error.details).toEqual({ runId: "nope" });
        expect((await runs.get("r1"))?.status).toBe("running");
      });

      it("lists newest first, filters by status and honours the limit", async () => {
        const { runs } = (await fresh()).store;
        await runs.create(newRun("a", "2026-01-01T00:00:02.000Z"));
        await runs.create(newRun("b", "2026-01-01T00:00:01.000Z"));
        await runs.create(newRun("c", "2026-01-01T00:00:03.000Z"));
        await runs.create(newRun("d", "2026-01-01T00:00:03.000Z")); // same time as c: ties by id, descending
        await runs.update("a", { updatedAt: TS, status: "completed" });
        await runs.update("d", { updatedAt: TS, status: "completed" });
        await runs.update("b", { updatedAt: TS, status: "failed" });
        const ids = async (options?: Parameters<Store["runs"]["list"]>[0]) =>
          (await runs.list(options)).map((r) => r.id);
        expect(await ids()).toEqual(["d", "c", "a", "b"]);
        expect(await ids({ limit: 2 })).toEqual(["d", "c"]);
        expect(await ids({ status: "completed" })).toEqual(["d", "a"]);
        expect(await ids({ status: "completed", limit: 1 })).toEqual(["d"]);
        expect(await ids({ status: "running" })).toEqual(["c"]);
        expect(await ids({ status: "cancelled" })).toEqual([]);
      });

      it("lists at most 50 runs by default", async () => {
        const { runs } = (await fresh()).store;
        for (let i = 0; i < 52; i++) await runs.create(newRun(`r${String(i).padStart(2, "0")}`));
        const listed = await runs.list();
        expect(listed).toHaveLength(50);
        expect(listed[0]!.id).toBe("r51");
        expect(listed.at(-1)!.id).toBe("r02");
      });

      describe("resolveId", () => {
        it("resolves an exact id, a unique prefix and a prefix of the random suffix", async () => {
          const { runs } = (await fresh()).store;
          for (const id of [
            "20260101-000000-aaaaaa",
            "20260101-000000-abcdef",
            "20260102-000000-zzzzzz",
            "20260101-000000-s3skuk",
            "20260101-000001-q8xyzw",
          ])
            await runs.create(newRun(id));
          expect(await runs.resolveId("20260101-000000-abcdef")).toBe("20260101-000000-abcdef");
          expect(await runs.resolveId("20260101-000000-ab")).toBe("20260101-000000-abcdef");
          expect(await runs.resolveId("20260102")).toBe("20260102-000000-zzzzzz");
          expect(await runs.resolveId("s3sk")).toBe("20260101-000000-s3skuk");
          expect(await runs.resolveId("q8xyzw")).toBe("20260101-000001-q8xyzw");
          await expect(runs.resolveId("nomatch")).rejects.toThrow(/no run matches/);
        });

        it("prefers an exact id over longer ids it is a prefix of, also among case variants", async () => {
          const { runs } = (await fresh()).store;
          for (const id of ["run", "run-1", "run-2", "run-3", "run-4", "RUN-5"])
            await runs.create(newRun(id));
          expect(await runs.resolveId("run")).toBe("run");
        });

        it("rejects an ambiguous prefix with INPUT_INVALID listing at most three matches", async () => {
          const { runs } = (await fresh()).store;
          for (const id of ["20260101-000000-abc111", "20260101-000000-abc222", "20260101-000000-xyz333"])
            await runs.create(newRun(id));
          const two = await rejection(runs.resolveId("20260101-000000-abc"), "INPUT_INVALID");
          expect(two.details).toEqual({
            prefix: "20260101-000000-abc",
            matches: ["20260101-000000-abc111", "20260101-000000-abc222"],
          });
          expect(two.message).not.toContain("…");
          for (const id of ["p1", "p2", "p3", "p4", "p5"]) await runs.create(newRun(id));
          const many = await rejection(runs.resolveId("p"), "INPUT_INVALID");
          expect(many.details.matches).toEqual(["p1", "p2", "p3"]);
          expect(many.message).toContain("p1, p2, p3, …");
          const none = await rejection(runs.resolveId("abd"), "NOT_FOUND");
          expect(none.details).toEqual({ prefix: "abd" });
        });

        it("treats LIKE wildcards in the prefix literally", async () => {
          const { runs } = (await fresh()).store;
          for (const id of ["abc-1", "a_c-2", "x%y-3", "back\\slash-4"]) await runs.create(newRun(id));
          await rejection(runs.resolveId("%"), "NOT_FOUND");
          await rejection(runs.resolveId("_"), "NOT_FOUND");
          await rejection(runs.resolveId("a%"), "NOT_FOUND");
          expect(await runs.resolveId("a_")).toBe("a_c-2");
          expect(await runs.resolveId("x%")).toBe("x%y-3");
          expect(await runs.resolveId("ab")).toBe("abc-1");
          expect(await runs.resolveId("back\\")).toBe("back\\slash-4");
          await rejection(runs.resolveId("\\"), "NOT_FOUND");
        });
      });
    });

    describe("ownership, heartbeats and cancellation", () => {
      const owner = { host: "h1", pid: 42, startedAt: "2026-02-03T04:00:00.000Z" };
      const other = { host: "h2", pid: 7, startedAt: "2026-02-03T04:00:00.000Z" };

      it("records the owner with a first heartbeat; the owner's heartbeats hold the run, a stranger's do not", async () => {
        const { runs } = (await fresh()).store;
        const created = await runs.create({ ...newRun("r1", "2026-02-03T04:05:06.000Z"), owner });
        expect(created).toMatchObject({ owner, heartbeatAt: "2026-02-03T04:05:06.000Z" });
        // Field order of the owner object does not matter.
        const reordered = { startedAt: owner.startedAt, pid: owner.pid, host: owner.host };
        expect(await runs.heartbeat("r1", reordered, "2026-02-03T04:05:08.000Z")).toEqual({
          held: true,
          cancelRequested: null,
        });
        expect(await runs.get("r1")).toMatchObject({ heartbeatAt: "2026-02-03T04:05:08.000Z" });
        expect(await runs.heartbeat("r1", other, "2026-02-03T04:05:09.000Z")).toEqual({
          held: false,
          cancelRequested: null,
        });
        expect((await runs.get("r1"))?.heartbeatAt).toBe("2026-02-03T04:05:08.000Z");
        await runs.update("r1", { updatedAt: TS, status: "completed" });
        expect((await runs.heartbeat("r1", owner, "2026-02-03T04:05:10.000Z")).held).toBe(false);
        expect((await runs.heartbeat("ghost", owner, TS)).held).toBe(false);
      });

      it("claims an interrupted, cancelled or failed run once, never a completed or live one", async () => {
        const { runs } = (await fresh()).store;
        for (const [id, status] of [
          ["i", "interrupted"],
          ["c", "cancelled"],
          ["f", "failed"],
          ["done", "completed"],
        ] as const) {
          await runs.create({ ...newRun(id), owner });
          await runs.update(id, {
            updatedAt: TS,
            status,
            finishedAt: TS,
            stopReason: "why",
            error: { code: "X", message: "m" },
          });
        }
        await runs.create({ ...newRun("live"), owner });
        for (const id of ["i", "c", "f"]) {
          const claimed = await runs.claim(id, other, "2026-01-01T00:00:05.000Z");
          expect(claimed).toMatchObject({
            status: "running",
            owner: other,
            heartbeatAt: "2026-01-01T00:00:05.000Z",
            finishedAt: null,
            stopReason: null,
            error: null,
          });
          expect(await runs.claim(id, owner, "2026-01-01T00:00:06.000Z")).toBeNull();
        }
        expect(await runs.claim("done", other, TS)).toBeNull();
        expect(await runs.claim("live", other, TS)).toBeNull();
        expect(await runs.claim("ghost", other, TS)).toBeNull();
        expect((await runs.get("live"))?.owner).toEqual(owner);
      });

      it("claims a run awaiting review only when asked to, and only from the statuses named", async () => {
        const { runs } = (await fresh()).store;
        for (const [id, status] of [
          ["review", "awaiting-review"],
          ["c", "cancelled"],
        ] as const) {
          await runs.create({ ...newRun(id), owner });
          await runs.update(id, { updatedAt: TS, status, stopReason: status });
        }
        // Neither a resume nor a take-over takes a run whose plan awaits review.
        expect(await runs.claim("review", other, TS)).toBeNull();
        expect(await runs.claim("review", other, TS, { staleBefore: "2999-01-01T00:00:00.000Z" })).toBeNull();
        // An answer to the review takes it; a cancelled run is not taken by one.
        expect(await runs.claim("c", other, TS, { from: ["awaiting-review"] })).toBeNull();
        expect(
          await runs.claim("review", other, "2026-01-01T00:00:05.000Z", { from: ["awaiting-review"] }),
        ).toMatchObject({
          status: "running",
          owner: other,
          stopReason: null,
        });
        expect(await runs.claim("review", owner, TS, { from: ["awaiting-review"] })).toBeNull();
        expect((await runs.get("c"))?.status).toBe("cancelled");
      });

      it("takes over a running run only when its heartbeat is older than staleBefore; the old owner loses it", async () => {
        const { runs } = (await fresh()).store;
        await runs.create({ ...newRun("r1", "2026-01-01T00:00:00.000Z"), owner });
        await runs.heartbeat("r1", owner, "2026-01-01T00:00:10.000Z");
        expect(await runs.claim("r1", other, "2026-01-01T00:00:11.000Z")).toBeNull();
        expect(
          await runs.claim("r1", other, "2026-01-01T00:00:11.000Z", {
            staleBefore: "2026-01-01T00:00:10.000Z",
          }),
        ).toBeNull();
        const taken = await runs.claim("r1", other, "2026-01-01T00:00:40.000Z", {
          staleBefore: "2026-01-01T00:00:30.000Z",
        });
        expect(taken).toMatchObject({
          status: "running",
          owner: other,
          heartbeatAt: "2026-01-01T00:00:40.000Z",
        });
        expect((await runs.heartbeat("r1", owner, "2026-01-01T00:00:41.000Z")).held).toBe(false);
        expect((await runs.heartbeat("r1", other, "2026-01-01T00:00:41.000Z")).held).toBe(true);
      });

      it("lets exactly one of several processes claim a run", async () => {
        const { store, spec } = await fresh();
        await store.runs.create({ ...newRun("contested"), owner });
        await store.runs.update("contested", { updatedAt: TS, status: "interrupted" });
        const outcomes = await children(
          spec,
          [1, 2, 3, 4].map(() => ({ action: "claim", runId: "contested" })),
        );
        const winners = outcomes.filter((o) => o.claimed === true);
        expect(winners).toHaveLength(1);
        expect((await store.runs.get("contested"))?.owner?.pid).toBe(winners[0]!.pid);
      }, 30_000);

      it("carries a cancellation request from any process to the owner's heartbeat; a claim clears it", async () => {
        const { store, another, spec } = await fresh();
        const { runs } = store;
        await runs.create({ ...newRun("r1"), owner });
        await runs.create({ ...newRun("ended"), owner });
        await runs.update("ended", { updatedAt: TS, status: "completed" });
        expect(await runs.requestCancel("ended", "too late", TS)).toBe(false);
        expect(await runs.requestCancel("ghost", "nobody", TS)).toBe(false);
        expect((await runs.heartbeat("r1", owner, TS)).cancelRequested).toBeNull();

        expect(await another().runs.requestCancel("r1", "stop it", TS)).toBe(true);
        expect(await runs.heartbeat("r1", owner, TS)).toEqual({ held: true, cancelRequested: "stop it" });
        expect((await runs.get("r1"))?.status).toBe("running"); // only the owner ends its run

        await runs.update("r1", { updatedAt: TS, status: "cancelled" });
        await runs.claim("r1", other, TS);
        expect(await runs.heartbeat("r1", other, TS)).toEqual({ held: true, cancelRequested: null });
        expect(await child(spec, { action: "cancel", runId: "r1" })).toEqual({ requested: true });
        expect((await runs.heartbeat("r1", other, TS)).cancelRequested).toMatch(/^cancelled by \d+$/);
      }, 30_000);
    });

    describeQueuedRuns({ fresh, children, rejection });

    describe("event log", () => {
      it("stamps seq 1, 2, 3… per run, independently across runs", async () => {
        const { runs, events } = (await fresh()).store;
        await runs.create(newRun("r1"));
        await runs.create(newRun("r2"));
        expect(await events.lastSeq("r1")).toBe(0);
        const a1 = await events.append("r1", phase("a"), TS);
        const b1 = await events.append("r2", phase("b"), TS);
        const a2 = await events.append("r1", phase("c"), TS);
        const a3 = await events.append("r1", { type: "warning", code: "W", message: "careful" }, TS);
        const b2 = await events.append("r2", phase("d"), TS);
        expect([a1.seq, a2.seq, a3.seq]).toEqual([1, 2, 3]);
        expect([b1.seq, b2.seq]).toEqual([1, 2]);
        expect(a1).toEqual({ type: "phase", phase: "a", runId: "r1", seq: 1, ts: TS });
        expect(await events.lastSeq("r1")).toBe(3);
        expect(await events.lastSeq("r2")).toBe(2);
        expect(await events.list("r1")).toEqual([a1, a2, a3]);
        expect((await events.list("r2")).map((e) => e.seq)).toEqual([1, 2]);
      });

      it("stores appends issued without waiting in the order they were issued", async () => {
        const { runs, events } = (await fresh()).store;
        await runs.create(newRun("r1"));
        const issued = Array.from({ length: 40 }, (_, i) => events.append("r1", phase(`p${i}`), TS));
        const stored = await Promise.all(issued);
        expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        const listed = await events.list("r1");
        expect(listed.map((e) => (e as Extract<DossierEvent, { type: "phase" }>).phase)).toEqual(
          Array.from({ length: 40 }, (_, i) => `p${i}`),
        );
      });

      it("lists after a seq, up to a limit, and by type", async () => {
        const { runs, events } = (await fresh()).store;
        await runs.create(newRun("r1"));
        for (let i = 1; i <= 6; i++) {
          await events.append(
            "r1",
            i % 2 === 0 ? { type: "warning", code: `W${i}`, message: "m" } : phase(`p${i}`),
            `2026-01-01T00:00:0${i}.000Z`,
          );
        }
        const seqs = async (query?: Parameters<Store["events"]["list"]>[1]) =>
          (await events.list("r1", query)).map((e) => e.seq);
        expect(await seqs({ afterSeq: 4 })).toEqual([5, 6]);
        expect(await seqs({ limit: 2 })).toEqual([1, 2]);
        expect(await seqs({ afterSeq: 1, limit: 3 })).toEqual([2, 3, 4]);
        expect(await seqs({ types: ["warning"] })).toEqual([2, 4, 6]);
        expect(await seqs({ types: ["warning", "phase"] })).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await seqs({ types: [] })).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await seqs({ types: ["warning"], afterSeq: 2, limit: 1 })).toEqual([4]);
        expect(await seqs({ types: ["run-end"] })).toEqual([]);
        expect(await seqs({ afterSeq: 6 })).toEqual([]);
        expect((await events.list("r1", { limit: 1 }))[0]!.ts).toBe("2026-01-01T00:00:01.000Z");
        expect(await events.list("other")).toEqual([]);
      });

      it("round-trips events through the schema, keeping unknown figures null and odd text intact", async () => {
        const { runs, events } = (await fresh()).store;
        await runs.create(newRun("r1"));
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
        const odd: EventInput = {
          type: "warning",
          code: "W",
          message: "nul \u0000, emoji 🧪, quote ' and \\",
        };
        const stored: DossierEvent[] = [];
        for (const event of [llmEnd, runEnd, odd]) stored.push(await events.append("r1", event, TS));
        const listed = await events.list("r1");
        expect(listed).toEqual(stored);
        expect(listed[0]).toEqual({ ...llmEnd, runId: "r1", seq: 1, ts: TS });
        expect(listed[1]).toEqual({ ...runEnd, runId: "r1", seq: 2, ts: TS });
        expect(listed[2]).toEqual({ ...odd, runId: "r1", seq: 3, ts: TS });
      });

      it("notifies subscribers of that run only, after the event is stored, until they unsubscribe", async () => {
        const { runs, events } = (await fresh()).store;
        await runs.create(newRun("r1"));
        await runs.create(newRun("r2"));
        await events.append("r1", phase("before"), TS);
        const seen: DossierEvent[] = [];
        const storedWhenSeen: number[] = [];
        const unsubscribe = events.subscribe("r1", (event) => {
          seen.push(event);
          void events.lastSeq("r1").then((n) => storedWhenSeen.push(n));
        });
        const e2 = await events.append("r1", phase("x"), TS);
        await events.append("r2", phase("elsewhere"), TS);
        const e3 = await events.append("r1", phase("y"), TS);
        expect(seen).toEqual([e2, e3]);
        unsubscribe();
        unsubscribe(); // idempotent
        await events.append("r1", phase("z"), TS);
        expect(seen).toEqual([e2, e3]);
        await expect.poll(() => storedWhenSeen.length).toBe(2);
        expect(storedWhenSeen[0]).toBeGreaterThanOrEqual(2);
      });

      it("refuses an event for a run that does not exist", async () => {
        const { runs, events } = (await fresh()).store;
        await runs.create(newRun("r1"));
        const seen: DossierEvent[] = [];
        events.subscribe("ghost", (event) => seen.push(event));
        const error = await rejection(events.append("ghost", phase("x"), TS), "STORE_ERROR");
        expect(error.message).toContain("ghost");
        expect(seen).toEqual([]);
        expect(await events.lastSeq("ghost")).toBe(0);
        expect(await events.list("ghost")).toEqual([]);
      });

      it("keeps a gapless sequence when two store instances append to the same run at once", async () => {
        const { store, another } = await fresh();
        const b = another();
        await store.runs.create(newRun("shared"));
        const appends: Promise<DossierEvent>[] = [];
        for (let i = 0; i < 40; i++)
          appends.push((i % 2 === 0 ? store : b).events.append("shared", phase(`p${i}`), TS));
        const stamped = (await Promise.all(appends)).map((e) => e.seq).sort((x, y) => x - y);
        const expected = Array.from({ length: 40 }, (_, i) => i + 1);
        expect(stamped).toEqual(expected);
        for (const s of [store, b]) {
          expect((await s.events.list("shared")).map((e) => e.seq)).toEqual(expected);
          expect(await s.events.lastSeq("shared")).toBe(40);
        }
      });

      it("keeps a contiguous sequence when several processes append to one run together", async () => {
        const { store, spec } = await fresh();
        await store.runs.create(newRun("busy"));
        const tags = ["a", "b", "c", "d"];
        const outcomes = await children(
          spec,
          tags.map((tag) => ({ action: "append", runId: "busy", count: 50, pauseMs: 1, tag })),
        );
        const listed = await store.events.list("busy");
        expect(listed.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
        const phases = listed.map((e) => (e as Extract<DossierEvent, { type: "phase" }>).phase);
        for (const [i, tag] of tags.entries()) {
          // Each process's events are stored in the order it appended them, under the seqs it was told.
          const own = listed.filter((_, n) => phases[n]!.startsWith(`${tag}:`));
          expect(own.map((e) => (e as Extract<DossierEvent, { type: "phase" }>).phase)).toEqual(
            Array.from({ length: 50 }, (_, n) => `${tag}:${n}`),
          );
          expect(own.map((e) => e.seq)).toEqual(outcomes[i]!.seqs);
        }
        // The writers really interleaved (not one process after the other).
        const switches = phases.filter((p, n) => n > 0 && p[0] !== phases[n - 1]![0]).length;
        expect(switches).toBeGreaterThan(3);
      }, 30_000);
    });

    describe("step journal", () => {
      it("stores entries per run, isolated between runs, and overwrites by key", async () => {
        const { store } = await fresh();
        await store.runs.create(newRun("r1"));
        await store.runs.create(newRun("r2"));
        const j1 = store.journal("r1");
        const j2 = store.journal("r2");
        expect(await j1.get("llm:h#1")).toBeUndefined();
        await j1.put("llm:h#1", { kind: "llm", value: { text: "one", usage: { inputTokens: null } } });
        await j2.put("llm:h#1", { kind: "llm", value: "two" });
        expect(await j1.get("llm:h#1")).toEqual({
          kind: "llm",
          value: { text: "one", usage: { inputTokens: null } },
        });
        expect(await j2.get("llm:h#1")).toEqual({ kind: "llm", value: "two" });
        expect(await j1.get("llm:h#2")).toBeUndefined();
        await j1.put("llm:h#1", { kind: "tool", value: [1, 2, 3] });
        expect(await j1.get("llm:h#1")).toEqual({ kind: "tool", value: [1, 2, 3] });
        expect(await j2.get("llm:h#1")).toEqual({ kind: "llm", value: "two" });
        expect(await store.journal("r1").get("llm:h#1")).toEqual({ kind: "tool", value: [1, 2, 3] });
      });

      it("replays every entry of a run to another instance and after a reopen", async () => {
        const { store, another } = await fresh();
        await store.runs.create(newRun("r1"));
        await store.runs.create(newRun("r2"));
        const written = new Map<string, { kind: string; value: unknown }>();
        for (let i = 1; i <= 25; i++) {
          const entry = { kind: i % 3 === 0 ? "tool" : "llm", value: { text: `answer ${i}`, n: i } };
          written.set(`llm:h${i}#1`, entry);
          await store.journal("r1").put(`llm:h${i}#1`, entry);
        }
        await store.journal("r2").put("llm:other#1", { kind: "llm", value: "not r1's" });
        await store.journal("r1").put("state:plan", { kind: "state", value: ["a", "b"] });
        written.set("state:plan", { kind: "state", value: ["a", "b"] });
        await store.close();
        const reopened = another();
        expect(await reopened.journal("r1").entries()).toEqual(written);
        expect(await reopened.journal("r2").entries()).toEqual(
          new Map([["llm:other#1", { kind: "llm", value: "not r1's" }]]),
        );
        expect(await reopened.journal("none").entries()).toEqual(new Map());
      });
    });

    describe("cache", () => {
      it("gets, sets, overwrites and deletes values per namespace, falsy values included", async () => {
        const { cache } = (await fresh()).store;
        expect(await cache.get("ns", "k", 0)).toBeUndefined();
        await cache.set("ns", "k", { a: [1, "two", null], b: true }, { nowMs: 0 });
        await cache.set("other", "k", "other value", { nowMs: 0 });
        expect(await cache.get("ns", "k", 0)).toEqual({ a: [1, "two", null], b: true });
        expect(await cache.get("other", "k", 0)).toBe("other value");
        await cache.set("ns", "k", 42, { nowMs: 5 });
        expect(await cache.get("ns", "k", 5)).toBe(42);
        await cache.delete("ns", "k");
        expect(await cache.get("ns", "k", 5)).toBeUndefined();
        expect(await cache.get("other", "k", 5)).toBe("other value");
        await cache.delete("ns", "never-set");
        await cache.set("ns", "zero", 0, { nowMs: 0 });
        await cache.set("ns", "empty", "", { nowMs: 0 });
        await cache.set("ns", "null", null, { nowMs: 0 });
        expect(await cache.get("ns", "zero", 0)).toBe(0);
        expect(await cache.get("ns", "empty", 0)).toBe("");
        expect(await cache.get("ns", "null", 0)).toBeNull();
      });

      it("expires entries relative to the nowMs it is given, not the wall clock", async () => {
        const { cache } = (await fresh()).store;
        await cache.set("ns", "k", "v", { nowMs: 1_000, ttlMs: 500 });
        await cache.set("ns", "forever", "v", { nowMs: 1_000 });
        expect(await cache.get("ns", "k", 1_000)).toBe("v");
        expect(await cache.get("ns", "k", 1_499)).toBe("v");
        expect(await cache.get("ns", "k", 1_500)).toBeUndefined();
        // An expired read removes the entry: an earlier clock no longer sees it.
        expect(await cache.get("ns", "k", 1_000)).toBeUndefined();
        expect(await cache.get("ns", "forever", Number.MAX_SAFE_INTEGER)).toBe("v");
        await cache.set("ns", "k", "old", { nowMs: 0, ttlMs: 10 });
        await cache.set("ns", "k", "new", { nowMs: 0 });
        expect(await cache.get("ns", "k", 1_000_000)).toBe("new");
        await cache.set("ns", "k", "short", { nowMs: 100, ttlMs: 10 });
        expect(await cache.get("ns", "k", 109)).toBe("short");
        expect(await cache.get("ns", "k", 110)).toBeUndefined();
      });

      it("purges expired entries and counts them; another instance sees the same entries", async () => {
        const { store, another } = await fresh();
        const { cache } = store;
        await cache.set("a", "1", 1, { nowMs: 0, ttlMs: 10 });
        await cache.set("a", "2", 2, { nowMs: 0, ttlMs: 20 });
        await cache.set("b", "3", 3, { nowMs: 0, ttlMs: 30 });
        await cache.set("b", "4", 4, { nowMs: 0 });
        expect(await cache.purgeExpired(5)).toBe(0);
        expect(await cache.purgeExpired(20)).toBe(2);
        expect(await cache.purgeExpired(20)).toBe(0);
        expect(await another().cache.get("b", "3", 0)).toBe(3);
        expect(await cache.get("a", "1", 0)).toBeUndefined();
        expect(await cache.purgeExpired(Number.MAX_SAFE_INTEGER)).toBe(1);
        expect(await cache.get("b", "4", Number.MAX_SAFE_INTEGER)).toBe(4);
      });
    });

    it("keeps runs, events, cache entries and journal entries across a reopen", async () => {
      const { store, another } = await fresh();
      await store.runs.create(newRun("r1"));
      await store.events.append("r1", phase("plan"), TS);
      await store.cache.set("search", "k", { hits: [1, 2] }, { nowMs: 0 });
      await store.journal("r1").put("llm:abc#1", { kind: "llm", value: { text: "hi" } });
      await store.close();
      await store.close(); // closing twice is harmless
      const second = another();
      expect((await second.runs.get("r1"))?.query).toBe("query of r1");
      expect((await second.events.list("r1")).map((e) => [e.seq, e.type])).toEqual([[1, "phase"]]);
      expect(await second.events.lastSeq("r1")).toBe(1);
      expect(await second.cache.get("search", "k", 1)).toEqual({ hits: [1, 2] });
      expect(await second.journal("r1").get("llm:abc#1")).toEqual({ kind: "llm", value: { text: "hi" } });
      // The sequence continues where it was.
      expect((await second.events.append("r1", phase("more"), TS)).seq).toBe(2);
    });
  });
}
