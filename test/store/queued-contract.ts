/**
 * The store contract of queued runs (part of `contract.ts`): a run enqueued for a worker is
 * stored `queued`, without owner or heartbeat; a worker takes it up by creating it (running,
 * atomically: one of several workers wins); cancelling it while queued cancels it at once, and a
 * cancelled run is never started; a cancel racing the start either stops the run before it
 * starts or reaches its owner.
 */

import { describe, expect, it } from "vitest";
import type { DossierError } from "../../src/core/errors.ts";
import type { NewRun, Store } from "../../src/store/types.ts";

/** What the queued-runs suite borrows from the contract suite. */
export interface QueuedContractKit {
  fresh(): Promise<{ store: Store; another(): Store; spec: unknown }>;
  children(spec: never, orders: Record<string, unknown>[]): Promise<Record<string, unknown>[]>;
  rejection(promise: Promise<unknown>, code: string): Promise<DossierError>;
}

const ENQUEUED = "2026-01-01T00:00:00.000Z";
const STARTED = "2026-01-01T00:00:07.000Z";
const owner = { host: "w1", pid: 11, startedAt: "2026-01-01T00:00:00.000Z" };
const other = { host: "w2", pid: 22, startedAt: "2026-01-01T00:00:00.000Z" };

function queuedRun(id: string, createdAt = ENQUEUED): NewRun {
  return {
    id,
    query: `query of ${id}`,
    strategy: "graph",
    options: { strategy: "graph", formats: ["md"] },
    createdAt,
    queued: true,
  };
}

/** Registers the queued-runs part of the contract. */
export function describeQueuedRuns(kit: QueuedContractKit): void {
  const { fresh, rejection } = kit;
  const children = kit.children as (
    spec: unknown,
    orders: Record<string, unknown>[],
  ) => Promise<Record<string, unknown>[]>;

  describe("queued runs", () => {
    it("stores an enqueued run as queued, without owner or heartbeat, and lists it by status", async () => {
      const { runs } = (await fresh()).store;
      // An owner given with a queued run is not recorded: nobody runs it yet.
      const created = await runs.create({ ...queuedRun("q1"), owner });
      expect(created).toMatchObject({
        id: "q1",
        status: "queued",
        owner: null,
        heartbeatAt: null,
        finishedAt: null,
        createdAt: ENQUEUED,
      });
      await runs.create({ ...queuedRun("r1"), queued: false, owner });
      expect((await runs.list({ status: "queued" })).map((r) => r.id)).toEqual(["q1"]);
      expect((await runs.list({ status: "running" })).map((r) => r.id)).toEqual(["r1"]);
      expect(await runs.get("q1")).toEqual(created);
    });

    it("refuses to queue an id that exists, in any state", async () => {
      const { runs } = (await fresh()).store;
      await runs.create(queuedRun("q1"));
      await rejection(runs.create(queuedRun("q1")), "STORE_ERROR");
      await runs.create({ ...queuedRun("r1"), queued: false, owner });
      await rejection(runs.create(queuedRun("r1")), "STORE_ERROR");
      expect((await runs.get("r1"))?.status).toBe("running");
    });

    it("lets a worker take a queued run up by creating it: running under its owner, the enqueue time kept", async () => {
      const { runs } = (await fresh()).store;
      await runs.create(queuedRun("q1"));
      const started = await runs.create({
        id: "q1",
        query: "the question, as the worker read it",
        strategy: "minddr",
        options: { strategy: "minddr", formats: ["md"], concurrency: 4 },
        createdAt: STARTED,
        owner,
      });
      expect(started).toMatchObject({
        id: "q1",
        status: "running",
        query: "the question, as the worker read it",
        strategy: "minddr",
        options: { strategy: "minddr", formats: ["md"], concurrency: 4 },
        owner,
        heartbeatAt: STARTED,
        createdAt: ENQUEUED,
        updatedAt: STARTED,
      });
      expect((await runs.heartbeat("q1", owner, STARTED)).held).toBe(true);
      // A second start of the same run (another worker, or the job handed on) is refused.
      const refused = await rejection(
        runs.create({ ...queuedRun("q1"), queued: false, owner: other }),
        "STORE_ERROR",
      );
      expect(refused.message).toContain("running");
      expect((await runs.get("q1"))?.owner).toEqual(owner);
    });

    it("neither claims a queued run nor lets a heartbeat hold it", async () => {
      const { runs } = (await fresh()).store;
      await runs.create(queuedRun("q1"));
      expect(await runs.claim("q1", owner, STARTED)).toBeNull();
      expect(await runs.claim("q1", owner, STARTED, { staleBefore: "2027-01-01T00:00:00.000Z" })).toBeNull();
      expect(await runs.heartbeat("q1", owner, STARTED)).toEqual({ held: false, cancelRequested: null });
      expect(await runs.get("q1")).toMatchObject({ status: "queued", owner: null, heartbeatAt: null });
    });

    it("cancels a queued run at once; it is then never started, and can be resumed like any cancelled run", async () => {
      const { store, another } = await fresh();
      const { runs } = store;
      await runs.create(queuedRun("q1"));
      expect(await another().runs.requestCancel("q1", "not needed", STARTED)).toBe(true);
      expect(await runs.get("q1")).toMatchObject({
        status: "cancelled",
        finishedAt: STARTED,
        updatedAt: STARTED,
        stopReason: "cancelled: not needed",
        owner: null,
        error: null,
      });
      expect(await runs.requestCancel("q1", "again", STARTED)).toBe(false);
      await rejection(runs.create({ ...queuedRun("q1"), queued: false, owner }), "STORE_ERROR");
      expect((await runs.get("q1"))?.status).toBe("cancelled");
      expect(await runs.claim("q1", owner, STARTED)).toMatchObject({ status: "running", owner });
    });

    it("lets exactly one of several processes start a queued run", async () => {
      const { store, spec } = await fresh();
      await store.runs.create(queuedRun("contested"));
      const outcomes = await children(
        spec,
        [1, 2, 3, 4].map(() => ({ action: "start", runId: "contested" })),
      );
      const winners = outcomes.filter((o) => o.started === true);
      expect(winners).toHaveLength(1);
      for (const loser of outcomes.filter((o) => o.started !== true)) expect(loser.code).toBe("STORE_ERROR");
      expect(await store.runs.get("contested")).toMatchObject({
        status: "running",
        owner: { pid: winners[0]!.pid },
        createdAt: ENQUEUED,
      });
    }, 30_000);

    it("settles a cancel racing the start either way: never started, or started with the cancel asked of its owner", async () => {
      const { store, spec } = await fresh();
      await store.runs.create(queuedRun("raced"));
      const outcomes = await children(spec, [
        { action: "start", runId: "raced" },
        { action: "cancel", runId: "raced" },
        { action: "start", runId: "raced" },
      ]);
      const started = outcomes.filter((o) => o.started === true);
      const cancel = outcomes[1]!;
      expect(cancel).toEqual({ requested: true });
      const record = await store.runs.get("raced");
      if (started.length === 0) {
        expect(record).toMatchObject({ status: "cancelled", owner: null });
        expect(record?.stopReason).toMatch(/^cancelled: cancelled by \d+$/);
      } else {
        expect(started).toHaveLength(1);
        expect(record).toMatchObject({ status: "running", owner: { pid: started[0]!.pid } });
        const beat = await store.runs.heartbeat("raced", record!.owner!, STARTED);
        expect(beat.cancelRequested).toMatch(/^cancelled by \d+$/);
      }
    }, 30_000);
  });
}
