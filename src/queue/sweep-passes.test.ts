/**
 * The sweeper's two passes over a store and a queue: the lease pass hands on every running run
 * whose owner is gone (and no other); the lost-job pass enqueues again a queued run only when two
 * readings of the queue, one right after the other, both lack its job and the run is past its
 * grace; sweepers acting at once enqueue one job between them.
 */

import { afterEach, describe, expect, it } from "vitest";
import { NOW, owners, type SweepWorld, sweepWorld } from "../../test/queue/sweep-world.ts";
import { requeueJobId, takeoverJobId } from "./reconcile.ts";
import { type SweeperOptions, type SweepNote, sweepLeases, sweepOnce, sweepQueued } from "./sweeper.ts";

let world: SweepWorld;
afterEach(async () => {
  await world?.store.close();
});

const GRACE = 2_000;
const sweeping = (extra: Partial<SweeperOptions> = {}) => ({
  queue: world.queue,
  store: world.store,
  clock: world.clock,
  staleAfterMs: 30_000,
  graceMs: GRACE,
  ...extra,
});

describe("one sweep", () => {
  it("hands on the runs whose owner is gone, then enqueues again the lost queued runs past their grace", async () => {
    world = sweepWorld();
    const lost = await world.queued("lost", 60_000);
    await world.queued("young", GRACE - 1);
    await world.queued("held", 60_000);
    await world.queue.enqueue({
      kind: "research",
      runId: "held",
      question: "q",
      options: {},
      enqueuedAt: new Date(NOW).toISOString(),
    });
    const dead = await world.running("dead", owners.dead(), 1_000);
    const expired = await world.running("expired", owners.elsewhere(6_000), 6_001);
    await world.running("mine", owners.self(), 3_600_000);
    await world.running("leased", owners.elsewhere(6_000), 5_999);
    await world.running("done", owners.dead(), 1_000);
    await world.store.runs.update("done", { status: "completed", updatedAt: new Date(NOW).toISOString() });

    const seen: SweepNote[] = [];
    const notes = await sweepOnce(sweeping({ onNote: (note) => seen.push(note) }));
    const takeovers = [
      { runId: "expired", action: "taken-over", jobId: takeoverJobId(expired) },
      { runId: "dead", action: "taken-over", jobId: takeoverJobId(dead) },
    ];
    expect(notes.slice(0, 2)).toEqual(expect.arrayContaining(takeovers));
    expect(notes.slice(2)).toEqual([{ runId: "lost", action: "requeued", jobId: requeueJobId(lost) }]);
    expect(seen).toEqual(notes);
    expect(world.queue.added.map((j) => j.job.runId).sort()).toEqual(["dead", "expired", "held", "lost"]);
  });

  it("by three sweepers at once enqueues one job per run between them, and the next sweep none", async () => {
    world = sweepWorld();
    const lost = await world.queued("lost", 60_000);
    const dead = await world.running("dead", owners.dead(), 1_000);
    const notes = (await Promise.all([1, 2, 3].map(() => sweepOnce(sweeping())))).flat();
    expect(notes.length).toBeGreaterThanOrEqual(2);
    for (const note of notes)
      expect([
        { runId: "lost", action: "requeued", jobId: requeueJobId(lost) },
        { runId: "dead", action: "taken-over", jobId: takeoverJobId(dead) },
      ]).toContainEqual(note);
    expect(world.queue.added.map((j) => j.id).sort()).toEqual(
      [takeoverJobId(dead), requeueJobId(lost)].sort(),
    );
    // The requeued job is live now; the taken-over run is still the lease pass's (same job).
    expect(await sweepQueued(sweeping())).toEqual([]);
    await sweepOnce(sweeping());
    expect(world.queue.added).toHaveLength(2);
  });

  it("fails a queued run whose re-enqueued job left the queue without a worker starting it", async () => {
    world = sweepWorld();
    const lost = await world.queued("lost", 60_000);
    await sweepOnce(sweeping());
    world.queue.settle(requeueJobId(lost), "failed");
    expect(await sweepOnce(sweeping())).toEqual([
      {
        runId: "lost",
        action: "failed",
        reason: "its job left the queue twice without a worker starting the run",
      },
    ]);
    expect((await world.store.runs.get("lost"))?.status).toBe("failed");
  });
});

describe("the lost-job pass", () => {
  it("leaves a run whose job one reading missed and the next one saw (a job moving between states)", async () => {
    world = sweepWorld();
    await world.queued("moving", 60_000);
    await world.queue.enqueue({
      kind: "research",
      runId: "moving",
      question: "q",
      options: {},
      enqueuedAt: new Date(NOW).toISOString(),
    });
    world.queue.onReading = (n) => (n === 1 ? new Set() : undefined);
    expect(await sweepQueued(sweeping())).toEqual([]);
    expect(world.queue.readings).toBe(2);
    expect(world.queue.added).toHaveLength(1);
  });

  it("enqueues again only the runs both readings lack", async () => {
    world = sweepWorld();
    const a = await world.queued("a", 60_000);
    await world.queued("b", 60_000);
    await world.queued("c", 60_000);
    // a is lacking from both; b from the first only; c is in the first only.
    world.queue.onReading = (n) => (n === 1 ? new Set(["c"]) : new Set(["b"]));
    expect(await sweepQueued(sweeping())).toEqual([
      { runId: "a", action: "requeued", jobId: requeueJobId(a) },
    ]);
    expect(world.queue.added.map((j) => j.job.runId)).toEqual(["a"]);
  });

  it("reads the queue once when every queued run has its job, and not at all when none is queued", async () => {
    world = sweepWorld();
    expect(await sweepQueued(sweeping())).toEqual([]);
    expect(world.queue.readings).toBe(0);
    await world.queued("held", 60_000);
    world.queue.onReading = () => new Set(["held"]);
    expect(await sweepQueued(sweeping())).toEqual([]);
    expect(world.queue.readings).toBe(1);
  });

  it("leaves a run that a worker started between the readings to the lease pass", async () => {
    world = sweepWorld();
    await world.queued("started", 60_000);
    world.queue.onReading = async (n) => {
      // A worker takes the run up, and its process ends at once.
      if (n === 2) await world.running("started", owners.dead(), 0);
      return new Set<string>();
    };
    expect(await sweepQueued(sweeping())).toEqual([]);
    expect(world.queue.added).toEqual([]);
    const [note] = await sweepLeases(sweeping());
    expect(note).toMatchObject({ runId: "started", action: "taken-over" });
  });

  it("leaves a run cancelled between the readings", async () => {
    world = sweepWorld();
    await world.queued("cancelled", 60_000);
    world.queue.onReading = async (n) => {
      if (n === 2)
        await world.store.runs.requestCancel("cancelled", "by its user", new Date(NOW).toISOString());
      return new Set<string>();
    };
    expect(await sweepQueued(sweeping())).toEqual([]);
    expect(world.queue.added).toEqual([]);
    expect((await world.store.runs.get("cancelled"))?.status).toBe("cancelled");
  });

  it("leaves queued runs within their grace, and takes the clock's time for it", async () => {
    world = sweepWorld();
    await world.queued("young", GRACE - 1);
    expect(await sweepQueued(sweeping())).toEqual([]);
    world.clock.advance(1);
    expect(await sweepQueued(sweeping())).toMatchObject([{ runId: "young", action: "requeued" }]);
  });
});

describe("the lease pass", () => {
  it("hands on a run whose owner recorded no lease once its heartbeat is older than staleAfterMs", async () => {
    world = sweepWorld();
    await world.running("unleased", owners.elsewhere(), 10_000);
    expect(await sweepLeases(sweeping({ staleAfterMs: 10_000 }))).toEqual([]);
    expect(await sweepLeases(sweeping({ staleAfterMs: 9_999 }))).toMatchObject([
      { runId: "unleased", action: "taken-over" },
    ]);
    world.clock.advance(20_000);
    expect(await sweepLeases(sweeping({ staleAfterMs: 29_999 }))).toMatchObject([{ runId: "unleased" }]);
    expect(world.queue.added).toHaveLength(1);
  });
});

describe("how many runs a sweep looks at", () => {
  // The queued runs are newer than the running ones: a pass looking at runs of every status would see them first.
  const fill = async () => {
    for (let i = 0; i < 60; i++) {
      await world.running(`r${i}`, owners.dead(), 120_000 + i);
      await world.queued(`q${i}`, 60_000 + i);
    }
    // And the newest of all is an ended run, looked at by neither pass.
    await world.running("ended", owners.dead(), 0);
    await world.store.runs.update("ended", { status: "completed", updatedAt: new Date(NOW).toISOString() });
  };

  it("is every run up to a thousand of each status by default", async () => {
    world = sweepWorld();
    await fill();
    const notes = await sweepOnce(sweeping());
    expect(notes.filter((n) => n.action === "taken-over")).toHaveLength(60);
    expect(notes.filter((n) => n.action === "requeued")).toHaveLength(60);
    expect(world.queue.added).toHaveLength(120);
  });

  it("is at most `limit` of each status when given", async () => {
    world = sweepWorld();
    await fill();
    const notes = await sweepOnce(sweeping({ limit: 1 }));
    expect(notes.map((n) => n.action)).toEqual(["taken-over", "requeued"]);
    expect(world.queue.added).toHaveLength(2);
  });
});
