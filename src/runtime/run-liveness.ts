/**
 * Telling a run under way from one whose process is gone. Each run records its owner (host,
 * pid, process start time, and the owner's lease) and a heartbeat; the run is the owner's while
 * its heartbeat is younger than the lease. A `running` run whose owner process no longer exists
 * on this host, or whose lease has expired, is marked `interrupted` — the status `runs resume`
 * picks up — or taken over by a worker of the run queue.
 *
 * The bound: an owner beats every {@link runHeartbeatMs} (at most a third of its lease), so a
 * live owner never lets its lease expire; one that dies has beaten at most one heartbeat before,
 * and its lease ends at most `leaseMs` after it died.
 */

import { hostname } from "node:os";
import type { Clock } from "../core/clock.ts";
import type { RunOwner, RunRecord } from "../core/run.ts";
import type { Store } from "../store/types.ts";

/** How often a running run's heartbeat is written (at most; see {@link runHeartbeatMs}). */
export const HEARTBEAT_MS = 2_000;
/** The lease of a process's runs unless it sets one ({@link setRunLease}). */
export const DEFAULT_LEASE_MS = 30_000;
/**
 * A heartbeat older than this means the owner is gone, for runs whose owner recorded no lease
 * (runs started by an earlier version).
 */
export const STALE_HEARTBEAT_MS = DEFAULT_LEASE_MS;
/** The shortest lease a process may set (ms). */
export const MIN_LEASE_MS = 1_000;

let self: Omit<RunOwner, "leaseMs"> | null = null;
let leaseMs = DEFAULT_LEASE_MS;

/**
 * Sets the lease of the runs this process starts or takes up from now on (ms): another process
 * may take a run over once its heartbeat is older than this (`dossier worker --lock-ms`). Runs
 * under way keep the lease they were started with. Returns the lease it replaced.
 */
export function setRunLease(ms: number): number {
  if (!Number.isInteger(ms) || ms < MIN_LEASE_MS)
    throw new RangeError(`a run lease must be a whole number of ms ≥ ${MIN_LEASE_MS}, got ${ms}`);
  const before = leaseMs;
  leaseMs = ms;
  return before;
}

/**
 * This process as a run owner: the same host, pid and start time for the life of the process
 * (its start time is computed once: computed again it could differ by a millisecond, and the
 * store compares owners exactly), with the process's current lease.
 */
export function currentOwner(): RunOwner {
  self ??= {
    host: hostname(),
    pid: process.pid,
    startedAt: new Date(Math.round(Date.now() - process.uptime() * 1000)).toISOString(),
  };
  return { ...self, leaseMs };
}

/** How often an owner with this lease writes a run's heartbeat: {@link HEARTBEAT_MS}, at most a third of the lease. */
export function runHeartbeatMs(lease = leaseMs): number {
  return Math.max(1, Math.min(HEARTBEAT_MS, Math.floor(lease / 3)));
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
 * When the lease of a `running` run ends (ms since the epoch): its last heartbeat plus its
 * owner's lease (`fallbackMs` for an owner that recorded none). Null when the run is not running
 * or has no owner or heartbeat.
 */
export function leaseEnd(run: RunRecord, fallbackMs = STALE_HEARTBEAT_MS): number | null {
  if (run.status !== "running" || !run.owner) return null;
  const beat = run.heartbeatAt ? Date.parse(run.heartbeatAt) : Number.NaN;
  if (!Number.isFinite(beat)) return null;
  return beat + (run.owner.leaseMs ?? fallbackMs);
}

/** True when `owner` is this process (whatever lease either names). */
export function isThisProcess(owner: RunOwner | null): boolean {
  const me = currentOwner();
  return owner !== null && owner.host === me.host && owner.pid === me.pid && owner.startedAt === me.startedAt;
}

/**
 * True when a `running` run's owner is gone: a process of this host that no longer exists, or
 * a lease that has expired ({@link leaseEnd} before `nowMs`). Runs recorded without an owner are
 * never judged, nor runs of this process.
 */
export function ownerGone(run: RunRecord, nowMs: number, fallbackMs = STALE_HEARTBEAT_MS): boolean {
  if (run.status !== "running" || !run.owner) return false;
  const me = currentOwner();
  if (run.owner.host === me.host && run.owner.pid === me.pid) return false;
  if (run.owner.host === me.host && !pidAlive(run.owner.pid)) return true;
  const end = leaseEnd(run, fallbackMs);
  return end !== null && nowMs > end;
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
