/**
 * What the reconciler does with one run the queue holds no live job for, by the run's recorded
 * state: a lost queued run past its grace is enqueued again (failed once its re-enqueued job
 * ended without starting it), a running run is handed on only when its owner is gone, an
 * interrupted one only for an enqueuer that asks; every job id is derived from the recorded
 * state, so that readers of one state enqueue one job between them.
 */

import { afterEach, describe, expect, it } from "vitest";
import { ago, NOW, owners, type SweepWorld, sweepWorld } from "../../test/queue/sweep-world.ts";
import { reconcileRun, requeueJobId, resumeJobId, takeOverIfGone, takeoverJobId } from "./reconcile.ts";

const GRACE = 2_000;
const STALE = 30_000;
const options = { graceMs: GRACE, staleAfterMs: STALE, now: NOW };
const none = new Set<string>();

let world: SweepWorld;
afterEach(async () => {
  await world?.store.close();
});

describe("a queued run without a live job", () => {
  it("is enqueued again once past its grace, with its question, request and enqueue time", async () => {
    world = sweepWorld();
    const record = await world.queued("lost", 60_000);
    const done = await reconcileRun(world.queue, world.store, record, none, options);
    expect(done).toEqual({ action: "requeued", jobId: requeueJobId(record) });
    expect(world.queue.added).toEqual([
      {
        id: requeueJobId(record),
        job: {
          kind: "research",
          runId: "lost",
          question: "What happened to lost?",
          options: { strategy: "graph", maxSteps: 3 },
          enqueuedAt: record.createdAt,
        },
        first: false,
        state: "waiting",
      },
    ]);
    // The run stays queued: a worker takes it up from the job.
    expect((await world.store.runs.get("lost"))?.status).toBe("queued");
  });

  it("is left alone while younger than the grace, and enqueued again from the grace on", async () => {
    world = sweepWorld();
    const young = await world.queued("young", GRACE - 1);
    const due = await world.queued("due", GRACE);
    expect(await reconcileRun(world.queue, world.store, young, none, options)).toEqual({ action: "none" });
    expect(world.queue.added).toEqual([]);
    expect(await reconcileRun(world.queue, world.store, due, none, options)).toMatchObject({
      action: "requeued",
    });
    expect(world.queue.added.map((j) => j.job.runId)).toEqual(["due"]);
  });

  it("is left alone when the reading given holds its job", async () => {
    world = sweepWorld();
    const record = await world.queued("held", 60_000);
    expect(await reconcileRun(world.queue, world.store, record, new Set(["held"]), options)).toEqual({
      action: "none",
    });
    expect(world.queue.added).toEqual([]);
  });

  it("gets one job per run and per recorded state, whoever reads that state", async () => {
    world = sweepWorld();
    const a = await world.queued("a", 60_000);
    const b = await world.queued("b", 60_000);
    const readers = [a, a, a, b, b].map((r) => reconcileRun(world.queue, world.store, r, none, options));
    const done = await Promise.all(readers);
    expect(new Set(done.map((d) => (d.action === "requeued" ? d.jobId : d.action))).size).toBe(2);
    expect(world.queue.added.map((j) => j.job.runId)).toEqual(["a", "b"]);
    // Its state recorded anew (the run was queued again later): a job of its own.
    const later = { ...a, updatedAt: ago(30_000) };
    expect(requeueJobId(later)).not.toBe(requeueJobId(a));
    await reconcileRun(world.queue, world.store, later, none, options);
    expect(world.queue.added.map((j) => j.id)).toEqual([
      requeueJobId(a),
      requeueJobId(b),
      requeueJobId(later),
    ]);
    for (const id of [requeueJobId(a), requeueJobId(later)]) expect(id.startsWith("a.")).toBe(true);
  });

  it("is enqueued again while its earlier re-enqueued job is still on its way (no second job)", async () => {
    world = sweepWorld();
    const record = await world.queued("moving", 60_000);
    await reconcileRun(world.queue, world.store, record, none, options);
    world.queue.settle(requeueJobId(record), "active");
    expect(await reconcileRun(world.queue, world.store, record, none, options)).toEqual({
      action: "requeued",
      jobId: requeueJobId(record),
    });
    expect(world.queue.added).toHaveLength(1);
    expect((await world.store.runs.get("moving"))?.status).toBe("queued");
  });

  for (const ended of ["completed", "failed"]) {
    it(`fails when its re-enqueued job already ${ended} without a worker starting it`, async () => {
      world = sweepWorld();
      const record = await world.queued("twice", 60_000);
      await reconcileRun(world.queue, world.store, record, none, options);
      world.queue.settle(requeueJobId(record), ended);
      const reason = "its job left the queue twice without a worker starting the run";
      expect(await reconcileRun(world.queue, world.store, record, none, options)).toEqual({
        action: "failed",
        reason,
      });
      expect(world.queue.added).toHaveLength(1);
      expect(await world.store.runs.get("twice")).toMatchObject({
        status: "failed",
        updatedAt: new Date(NOW).toISOString(),
        finishedAt: new Date(NOW).toISOString(),
        stopReason: "error: STORE_ERROR",
        error: { code: "STORE_ERROR", message: reason },
      });
    });
  }
});

describe("a running run", () => {
  it("is handed on when its owner's process ended on this host, before the runs waiting", async () => {
    world = sweepWorld();
    const record = await world.running("orphaned", owners.dead(), 1_000);
    const done = await reconcileRun(world.queue, world.store, record, none, options);
    expect(done).toEqual({ action: "taken-over", jobId: takeoverJobId(record) });
    expect(world.queue.added).toEqual([
      {
        id: takeoverJobId(record),
        job: { kind: "resume", runId: "orphaned", enqueuedAt: new Date(NOW).toISOString(), takeover: true },
        first: true,
        state: "waiting",
      },
    ]);
    // The store is left to the worker that takes it over.
    expect((await world.store.runs.get("orphaned"))?.status).toBe("running");
  });

  it("is left alone while its owner lives: this process, or a lease that holds", async () => {
    world = sweepWorld();
    const mine = await world.running("mine", owners.self(), 3_600_000);
    const leased = await world.running("leased", owners.elsewhere(6_000), 6_000);
    const unleased = await world.running("unleased", owners.elsewhere(), STALE);
    for (const record of [mine, leased, unleased]) {
      expect(await reconcileRun(world.queue, world.store, record, none, options)).toEqual({ action: "none" });
      expect(await takeOverIfGone(world.queue, record, options)).toBeNull();
    }
    expect(world.queue.added).toEqual([]);
  });

  it("is handed on once its owner's lease expired (the reader's bound for an owner that recorded none)", async () => {
    world = sweepWorld();
    const leased = await world.running("leased", owners.elsewhere(6_000), 6_001);
    const unleased = await world.running("unleased", owners.elsewhere(), 10_000);
    expect(await takeOverIfGone(world.queue, leased, { now: NOW, staleAfterMs: STALE })).toEqual({
      action: "taken-over",
      jobId: takeoverJobId(leased),
    });
    expect(await takeOverIfGone(world.queue, unleased, { now: NOW, staleAfterMs: STALE })).toBeNull();
    expect(await takeOverIfGone(world.queue, unleased, { now: NOW, staleAfterMs: 9_999 })).toEqual({
      action: "taken-over",
      jobId: takeoverJobId(unleased),
    });
    expect(world.queue.added.map((j) => j.job.runId)).toEqual(["leased", "unleased"]);
  });

  it("is handed on once per last heartbeat: a silent owner's late write makes no second job, a new owner's death does", async () => {
    world = sweepWorld();
    const first = await world.running("silent", owners.elsewhere(6_000), 60_000);
    await reconcileRun(world.queue, world.store, first, none, options);
    // The silent owner's last write lands after its lease: its heartbeat is unchanged.
    const late = await world.store.runs.update("silent", {
      updatedAt: ago(1_000),
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0, llmCalls: 1, toolCalls: 0 },
    });
    expect(late.heartbeatAt).toBe(first.heartbeatAt);
    expect(await reconcileRun(world.queue, world.store, late, none, options)).toEqual({
      action: "taken-over",
      jobId: takeoverJobId(first),
    });
    expect(world.queue.added).toHaveLength(1);
    // A worker took it over, beat, and died in turn: handed on again, under a new job.
    const retaken = { ...late, heartbeatAt: ago(20_000), updatedAt: ago(20_000) };
    expect(await reconcileRun(world.queue, world.store, retaken, none, options)).toMatchObject({
      action: "taken-over",
    });
    expect(world.queue.added.map((j) => j.id)).toEqual([takeoverJobId(first), takeoverJobId(retaken)]);
    expect(new Set(world.queue.added.map((j) => j.id)).size).toBe(2);
  });

  it("recorded without a heartbeat is handed on under its recorded state", async () => {
    world = sweepWorld();
    await world.running("beatless", owners.dead(), 5_000);
    const a = await world.store.runs.update("beatless", { updatedAt: ago(4_000), heartbeatAt: null });
    const b = { ...a, updatedAt: ago(3_000) };
    await reconcileRun(world.queue, world.store, a, none, options);
    await reconcileRun(world.queue, world.store, a, none, options);
    await reconcileRun(world.queue, world.store, b, none, options);
    expect(world.queue.added.map((j) => j.id)).toEqual([takeoverJobId(a), takeoverJobId(b)]);
    expect(world.queue.added.every((j) => j.id.startsWith("beatless.") && !j.id.includes("NaN"))).toBe(true);
  });
});

describe("an interrupted run without a live job", () => {
  const interrupted = async (id: string, atMs: number) => {
    await world.running(id, owners.dead(), 60_000);
    return world.store.runs.update(id, { status: "interrupted", updatedAt: ago(atMs) });
  };

  it("is left to its user unless the caller resumes interrupted runs", async () => {
    world = sweepWorld();
    const record = await interrupted("paused", 10_000);
    expect(await reconcileRun(world.queue, world.store, record, none, options)).toEqual({ action: "none" });
    expect(
      await reconcileRun(world.queue, world.store, record, none, { ...options, resumeInterrupted: false }),
    ).toEqual({ action: "none" });
    expect(world.queue.added).toEqual([]);
  });

  it("is handed on, one job per run and recorded state, before the runs waiting", async () => {
    world = sweepWorld();
    const a = await interrupted("a", 10_000);
    const b = await interrupted("b", 10_000);
    const resume = { ...options, resumeInterrupted: true };
    for (const record of [a, a, b])
      expect(await reconcileRun(world.queue, world.store, record, none, resume)).toEqual({
        action: "taken-over",
        jobId: resumeJobId(record),
      });
    expect(world.queue.added).toEqual(
      [a, b].map((r) => ({
        id: resumeJobId(r),
        job: { kind: "resume", runId: r.id, enqueuedAt: new Date(NOW).toISOString(), takeover: true },
        first: true,
        state: "waiting",
      })),
    );
    expect(resumeJobId({ ...a, updatedAt: ago(5_000) })).not.toBe(resumeJobId(a));
  });

  for (const ended of ["completed", "failed"]) {
    it(`fails when its resume already ${ended} without a worker taking it up`, async () => {
      world = sweepWorld();
      const record = await interrupted("stuck", 10_000);
      const resume = { ...options, resumeInterrupted: true };
      await reconcileRun(world.queue, world.store, record, none, resume);
      world.queue.settle(resumeJobId(record), ended);
      const reason = "it was interrupted and its resume left the queue without a worker taking it up";
      expect(await reconcileRun(world.queue, world.store, record, none, resume)).toEqual({
        action: "failed",
        reason,
      });
      expect(await world.store.runs.get("stuck")).toMatchObject({
        status: "failed",
        updatedAt: new Date(NOW).toISOString(),
        finishedAt: new Date(NOW).toISOString(),
        stopReason: "error: STORE_ERROR",
        error: { code: "STORE_ERROR", message: reason },
      });
      expect(world.queue.added).toHaveLength(1);
    });
  }

  it("is still handed on while its resume is on its way, and an ended run never is", async () => {
    world = sweepWorld();
    const record = await interrupted("on-its-way", 10_000);
    const resume = { ...options, resumeInterrupted: true };
    await reconcileRun(world.queue, world.store, record, none, resume);
    world.queue.settle(resumeJobId(record), "active");
    expect(await reconcileRun(world.queue, world.store, record, none, resume)).toMatchObject({
      action: "taken-over",
    });
    const ended = await world.store.runs.update("on-its-way", {
      status: "completed",
      updatedAt: ago(0),
      finishedAt: ago(0),
    });
    expect(await reconcileRun(world.queue, world.store, ended, none, resume)).toEqual({ action: "none" });
    expect(world.queue.added).toHaveLength(1);
  });
});
