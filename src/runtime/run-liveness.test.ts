import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it, vi } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { memoryStore, scriptedRegistry } from "../../test/scripted/harness.ts";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { startRun } from "./run.ts";
import {
  currentOwner,
  DEFAULT_LEASE_MS,
  HEARTBEAT_MS,
  leaseEnd,
  markInterruptedRuns,
  ownerGone,
  runHeartbeatMs,
  STALE_HEARTBEAT_MS,
  setRunLease,
} from "./run-liveness.ts";

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

describe("run liveness", () => {
  it("marks a running run whose owner process is gone as interrupted, and leaves live ones alone", async () => {
    const store = memoryStore();
    const now = Date.parse("2026-05-01T12:00:00.000Z");
    const createdAt = new Date(now - 1000).toISOString();
    const gone = { host: hostname(), pid: deadPid(), startedAt: createdAt };
    store.runs.create({ id: "dead", query: "q", strategy: "graph", options: {}, createdAt, owner: gone });
    store.runs.create({
      id: "mine",
      query: "q",
      strategy: "graph",
      options: {},
      createdAt,
      owner: currentOwner(),
    });
    store.runs.create({ id: "legacy", query: "q", strategy: "graph", options: {}, createdAt });
    const elsewhere = { host: `${hostname()}-other`, pid: 1, startedAt: createdAt };
    store.runs.create({
      id: "far-fresh",
      query: "q",
      strategy: "graph",
      options: {},
      createdAt,
      owner: elsewhere,
    });
    const stale = new Date(now - STALE_HEARTBEAT_MS - 1000).toISOString();
    store.runs.create({
      id: "far-stale",
      query: "q",
      strategy: "graph",
      options: {},
      createdAt: stale,
      owner: elsewhere,
    });

    expect((await markInterruptedRuns(store, instantClock(now))).sort()).toEqual(["dead", "far-stale"]);
    expect(await store.runs.get("dead")).toMatchObject({ status: "interrupted", finishedAt: null });
    expect((await store.runs.get("dead"))!.stopReason).toMatch(/^interrupted/);
    for (const id of ["mine", "legacy", "far-fresh"])
      expect((await store.runs.get(id))!.status).toBe("running");
    // A finished run is never judged.
    expect(ownerGone({ ...(await store.runs.get("dead"))!, status: "completed" }, now)).toBe(false);
    await store.close();
  });

  it("names this process the same way for its whole life, whatever the clock says later", () => {
    const first = currentOwner();
    const now = vi.spyOn(Date, "now").mockReturnValue(Date.now() + 60_000.7);
    const uptime = vi.spyOn(process, "uptime").mockReturnValue(1);
    try {
      // A store compares owners exactly: a start time computed again would not match.
      expect(currentOwner()).toEqual(first);
    } finally {
      now.mockRestore();
      uptime.mockRestore();
    }
  });

  it("leases a process's runs for its lease, beaten every third of it at most (2 s at most)", () => {
    expect(currentOwner().leaseMs).toBe(DEFAULT_LEASE_MS);
    const before = setRunLease(6_000);
    try {
      expect(before).toBe(DEFAULT_LEASE_MS);
      expect(currentOwner()).toMatchObject({ pid: process.pid, leaseMs: 6_000 });
      expect(runHeartbeatMs()).toBe(2_000);
      for (const lease of [1_000, 3_000, 4_500, 6_000, 30_000, 600_000]) {
        const beat = runHeartbeatMs(lease);
        expect(beat).toBeLessThanOrEqual(HEARTBEAT_MS);
        // Three beats fit in the lease: one missed beat never lets a live owner's lease expire.
        expect(3 * beat).toBeLessThanOrEqual(lease);
      }
      expect(() => setRunLease(999)).toThrow(RangeError);
    } finally {
      setRunLease(before);
    }
  });

  it("ends a run's lease at its heartbeat plus its owner's recorded lease (the reader's bound without one)", () => {
    const beat = Date.parse("2026-05-01T12:00:00.000Z");
    const owner = { host: `${hostname()}-other`, pid: 1, startedAt: "2026-05-01T00:00:00.000Z" };
    const run = {
      id: "r",
      query: "q",
      strategy: "graph",
      options: {},
      status: "running" as const,
      createdAt: "2026-05-01T11:00:00.000Z",
      updatedAt: "2026-05-01T12:00:00.000Z",
      finishedAt: null,
      stopReason: null,
      usage: null,
      error: null,
      heartbeatAt: new Date(beat).toISOString(),
      owner: { ...owner, leaseMs: 6_000 },
    };
    expect(leaseEnd(run)).toBe(beat + 6_000);
    expect(ownerGone(run, beat + 6_000)).toBe(false);
    expect(ownerGone(run, beat + 6_001)).toBe(true);
    // Recorded without a lease (an older version): the reader's bound.
    const legacy = { ...run, owner };
    expect(leaseEnd(legacy, 20_000)).toBe(beat + 20_000);
    expect(ownerGone(legacy, beat + 6_001)).toBe(false);
    expect(ownerGone(legacy, beat + STALE_HEARTBEAT_MS + 1)).toBe(true);
    expect(leaseEnd({ ...run, status: "completed" })).toBeNull();
  });

  it("records the lease with a run's owner and writes its heartbeat every runHeartbeatMs of it", async () => {
    const before = setRunLease(4_500);
    const intervals = vi.spyOn(globalThis, "setInterval");
    const store = memoryStore();
    try {
      const handle = startRun({
        store,
        registry: scriptedRegistry({ default: scriptedModel([]) }),
        query: "q",
        options: { strategy: "leased" },
        strategy: async (ctx) => {
          ctx.emit({ type: "phase", phase: "leased" });
          return {};
        },
      });
      await handle.done;
      expect((await store.runs.get(handle.runId))?.owner).toEqual({ ...currentOwner(), leaseMs: 4_500 });
      expect(intervals.mock.calls.map((call) => call[1])).toContain(runHeartbeatMs(4_500));
      expect(runHeartbeatMs(4_500)).toBe(1_500);
    } finally {
      intervals.mockRestore();
      setRunLease(before);
      await store.close();
    }
  });
});
