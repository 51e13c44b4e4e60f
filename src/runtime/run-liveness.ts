/**
 * Telling a run under way from one whose process is gone. Each run records its owner (host,
 * pid, process start time) and a heartbeat; a `running` run whose owner process no longer
 * exists on this host, or whose heartbeat went silent, is marked `interrupted` — the status
 * `runs resume` picks up.
 */

import { hostname } from "node:os";
import type { Clock } from "../core/clock.ts";
import type { RunOwner, RunRecord } from "../core/run.ts";
import type { Store } from "../store/types.ts";

/** How often a running run's heartbeat is written. */
export const HEARTBEAT_MS = 2_000;
/** A heartbeat older than this means the owner is gone (owners on other hosts, pid reuse). */
export const STALE_HEARTBEAT_MS = 30_000;

let self: RunOwner | null = null;

/**
 * This process as a run owner: the same value for the life of the process (its start time is
 * computed once: computed again it could differ by a millisecond, and the store compares owners
 * exactly).
 */
export function currentOwner(): RunOwner {
  self ??= {
    host: hostname(),
    pid: process.pid,
    startedAt: new Date(Math.round(Date.now() - process.uptime() * 1000)).toISOString(),
  };
  return { ...self };
}

/** True when a process with this pid exists on this host. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * True when a `running` run's owner is gone: a process of this host that no longer exists, or a
 * heartbeat silent for more than `staleMs`. Runs recorded without an owner are never judged.
 */
export function ownerGone(run: RunRecord, nowMs: number, staleMs = STALE_HEARTBEAT_MS): boolean {
  if (run.status !== "running" || !run.owner) return false;
  const self = currentOwner();
  if (run.owner.host === self.host && run.owner.pid === self.pid) return false;
  if (run.owner.host === self.host && !pidAlive(run.owner.pid)) return true;
  const beat = run.heartbeatAt ? Date.parse(run.heartbeatAt) : Number.NaN;
  return Number.isFinite(beat) && nowMs - beat > staleMs;
}

/** Marks every `running` run whose owner is gone as `interrupted`; returns their ids. */
export async function markInterruptedRuns(store: Store, clock: Clock): Promise<string[]> {
  const now = clock.now();
  const marked: string[] = [];
  for (const run of await store.runs.list({ status: "running", limit: 1000 })) {
    if (!ownerGone(run, now)) continue;
    await store.runs.update(run.id, {
      status: "interrupted",
      updatedAt: new Date(now).toISOString(),
      stopReason: "interrupted: its process ended without recording an end",
    });
    marked.push(run.id);
  }
  return marked;
}
