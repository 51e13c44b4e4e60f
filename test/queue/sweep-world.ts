/**
 * A world for unit tests of the sweeper and the reconciler: an in-memory SQLite store, a memory
 * run queue and an instant clock, with runs recorded as an enqueuer or a worker would leave them.
 */

import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import type { RunOwner, RunRecord } from "../../src/core/run.ts";
import { currentOwner } from "../../src/runtime/run-liveness.ts";
import { openSqliteStore } from "../../src/store/sqlite-store.ts";
import { type InstantClock, instantClock } from "../scripted/clocks.ts";
import { type MemoryRunQueue, memoryRunQueue } from "./memory-run-queue.ts";

/** The time the world starts at. */
export const NOW = Date.parse("2026-05-01T12:00:00.000Z");

/** The ISO time `ms` before {@link NOW}. */
export const ago = (ms: number): string => new Date(NOW - ms).toISOString();

let dead: number | null = null;
/** The pid of a process of this host that has already exited. */
export function deadPid(): number {
  dead ??= Number(
    spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
      .stdout,
  );
  return dead;
}

/** Owners a running run may be recorded under. */
export const owners = {
  /** A process of this host that has ended. */
  dead: (): RunOwner => ({ host: hostname(), pid: deadPid(), startedAt: ago(3_600_000) }),
  /** This process. */
  self: (): RunOwner => currentOwner(),
  /** A process of another host with a lease of `leaseMs` (none recorded when omitted). */
  elsewhere: (leaseMs?: number): RunOwner => ({
    host: `${hostname()}-elsewhere`,
    pid: 1,
    startedAt: ago(3_600_000),
    ...(leaseMs === undefined ? {} : { leaseMs }),
  }),
};

/** The world of one test. */
export interface SweepWorld {
  store: ReturnType<typeof openSqliteStore>;
  queue: MemoryRunQueue;
  clock: InstantClock;
  /** A run an enqueuer recorded `queued` `ageMs` ago (its job added or not, as the test does). */
  queued(id: string, ageMs: number): Promise<RunRecord>;
  /** A run recorded `running` under `owner`, its last heartbeat `beatAgoMs` ago. */
  running(id: string, owner: RunOwner, beatAgoMs: number): Promise<RunRecord>;
}

/** A fresh world at {@link NOW}. */
export function sweepWorld(): SweepWorld {
  const store = openSqliteStore({ home: ":memory:" });
  return {
    store,
    queue: memoryRunQueue(),
    clock: instantClock(NOW),
    queued: (id, ageMs) =>
      store.runs.create({
        id,
        query: `What happened to ${id}?`,
        strategy: "graph",
        options: { strategy: "graph", maxSteps: 3 },
        createdAt: ago(ageMs),
        queued: true,
      }),
    running: (id, owner, beatAgoMs) =>
      store.runs.create({
        id,
        query: `Who runs ${id}?`,
        strategy: "graph",
        options: { strategy: "graph" },
        createdAt: ago(beatAgoMs),
        owner,
      }),
  };
}
