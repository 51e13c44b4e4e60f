/**
 * When a running run's owner counts as gone — the judgement the queue's sweeper hands runs on
 * by: a process of this host that no longer exists, or a lease past its end; never this
 * process, never a run without an owner or a heartbeat, never an ended run. And the bounds a
 * process's lease is set within.
 */

import { hostname } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ago, deadPid, NOW } from "../../test/queue/sweep-world.ts";
import { instantClock } from "../../test/scripted/clocks.ts";
import type { RunOwner, RunRecord } from "../core/run.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import {
  currentOwner,
  isThisProcess,
  leaseEnd,
  MIN_LEASE_MS,
  markInterruptedRuns,
  ownerGone,
  runHeartbeatMs,
  setRunLease,
} from "./run-liveness.ts";

const run = (owner: RunOwner | null, beatAgoMs: number | null): RunRecord => ({
  id: "r",
  query: "q",
  strategy: "graph",
  options: {},
  status: "running",
  createdAt: ago(3_600_000),
  updatedAt: ago(beatAgoMs ?? 0),
  finishedAt: null,
  stopReason: null,
  usage: null,
  error: null,
  heartbeatAt: beatAgoMs === null ? null : ago(beatAgoMs),
  owner,
});

const elsewhere = (pid: number, leaseMs?: number): RunOwner => ({
  host: `${hostname()}-elsewhere`,
  pid,
  startedAt: ago(3_600_000),
  ...(leaseMs === undefined ? {} : { leaseMs }),
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a running run's owner", () => {
  it("of another host is judged by its lease alone, whatever its pid is here", () => {
    // A pid that does not exist on this host says nothing of another host's process.
    const fresh = run(elsewhere(deadPid(), 6_000), 6_000);
    expect(ownerGone(fresh, NOW)).toBe(false);
    expect(ownerGone(run(elsewhere(deadPid(), 6_000), 6_001), NOW)).toBe(true);
    // Nor does our own pid.
    expect(ownerGone(run(elsewhere(process.pid, 6_000), 6_000), NOW)).toBe(false);
    expect(ownerGone(run(elsewhere(process.pid, 6_000), 6_001), NOW)).toBe(true);
  });

  it("is never judged without a heartbeat unless its process ended on this host", () => {
    expect(leaseEnd(run(elsewhere(1, 6_000), null))).toBeNull();
    expect(ownerGone(run(elsewhere(1, 6_000), null), NOW)).toBe(false);
    expect(ownerGone(run({ host: hostname(), pid: deadPid(), startedAt: ago(1) }, null), NOW)).toBe(true);
    expect(ownerGone(run(null, 3_600_000), NOW)).toBe(false);
    expect(leaseEnd(run(null, 3_600_000))).toBeNull();
  });

  it("of this process is never gone, whatever its heartbeat; a lease of this host's other live process holds", () => {
    expect(ownerGone(run(currentOwner(), 3_600_000), NOW)).toBe(false);
    const sibling = { host: hostname(), pid: process.ppid, startedAt: ago(1), leaseMs: 6_000 };
    expect(ownerGone(run(sibling, 6_000), NOW)).toBe(false);
    expect(ownerGone(run(sibling, 6_001), NOW)).toBe(true);
  });

  it("of this host that we may not signal (another user's process) is alive", () => {
    const kill = vi.spyOn(process, "kill").mockImplementation(() => {
      throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
    });
    const foreign = { host: hostname(), pid: 4_000_000, startedAt: ago(1), leaseMs: 6_000 };
    expect(ownerGone(run(foreign, 1_000), NOW)).toBe(false);
    expect(kill).toHaveBeenCalledWith(4_000_000, 0);
    kill.mockImplementation(() => {
      throw Object.assign(new Error("kill ESRCH"), { code: "ESRCH" });
    });
    expect(ownerGone(run(foreign, 1_000), NOW)).toBe(true);
  });

  it("is this process only with its host, pid and start time, whatever lease either names", () => {
    const me = currentOwner();
    expect(isThisProcess({ ...me, leaseMs: 1_234 })).toBe(true);
    const { leaseMs: _, ...bare } = me;
    expect(isThisProcess(bare)).toBe(true);
    expect(isThisProcess(null)).toBe(false);
    expect(isThisProcess({ ...me, host: `${me.host}-other` })).toBe(false);
    expect(isThisProcess({ ...me, pid: me.pid + 1 })).toBe(false);
    expect(isThisProcess({ ...me, startedAt: ago(0) })).toBe(false);
  });
});

describe("this process as an owner", () => {
  it("started when it did: the time now less its uptime, to the ms", async () => {
    vi.spyOn(Date, "now").mockReturnValue(1_767_225_600_000);
    vi.spyOn(process, "uptime").mockReturnValue(12.3456);
    // A separate instance of the module (its own, not yet computed, owner), imported under another
    // id: resetting the module registry instead would leave that instance, with this test's start
    // time, to every later test file of the worker (they share it), and the runs those files
    // start would no longer be this process's.
    // @ts-expect-error: the same file under another module id (the query), which tsc does not resolve
    const fresh = (await import("./run-liveness.ts?fresh-owner")) as typeof import("./run-liveness.ts");
    expect(fresh.currentOwner()).toMatchObject({
      pid: process.pid,
      startedAt: new Date(1_767_225_600_000 - 12_346).toISOString(),
    });
  });
});

describe("a process's lease", () => {
  it("is a whole number of ms of at least MIN_LEASE_MS", () => {
    const before = setRunLease(MIN_LEASE_MS);
    try {
      expect(currentOwner().leaseMs).toBe(1_000);
      for (const bad of [999, 1_500.5, Number.NaN, -1])
        expect(() => setRunLease(bad), String(bad)).toThrow(
          new RangeError(`a run lease must be a whole number of ms ≥ 1000, got ${bad}`),
        );
      expect(currentOwner().leaseMs).toBe(1_000);
      expect(setRunLease(1_001)).toBe(1_000);
    } finally {
      setRunLease(before);
    }
  });

  it("is beaten at least every ms however short", () => {
    expect(runHeartbeatMs(2)).toBe(1);
    expect(runHeartbeatMs(3)).toBe(1);
    expect(runHeartbeatMs(9)).toBe(3);
    expect(runHeartbeatMs(6_001)).toBe(2_000);
  });
});

describe("marking interrupted runs", () => {
  it("looks at every running run, up to a thousand, however many newer runs of other statuses are stored", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    try {
      const dead = { host: hostname(), pid: deadPid(), startedAt: ago(3_600_000) };
      for (let i = 0; i < 60; i++)
        await store.runs.create({
          id: `r${i}`,
          query: "q",
          strategy: "graph",
          options: {},
          createdAt: ago(60_000 + i),
          owner: dead,
        });
      for (let i = 0; i < 1_000; i++)
        await store.runs.create({
          id: `q${i}`,
          query: "q",
          strategy: "graph",
          options: {},
          createdAt: ago(i),
          queued: true,
        });
      const marked = await markInterruptedRuns(store, instantClock(NOW));
      expect(marked).toHaveLength(60);
      expect(await store.runs.get("r59")).toMatchObject({
        status: "interrupted",
        updatedAt: new Date(NOW).toISOString(),
        stopReason: "interrupted: its process ended without recording an end",
      });
      expect((await store.runs.list({ status: "queued", limit: 2_000 })).length).toBe(1_000);
    } finally {
      await store.close();
    }
  });
});
