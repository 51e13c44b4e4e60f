/**
 * The store interfaces. The embedded SQLite implementation is the default; any other backend
 * implements the same interfaces and passes the same shared test suite.
 */

import type { DossierEvent, EventInput } from "../core/events.ts";
import type { StepJournal } from "../core/journal.ts";
import type { RunOwner, RunRecord, RunStatus } from "../core/run.ts";
import type { UsageTotals } from "../core/usage.ts";

/** Fields of a new run. */
export interface NewRun {
  id: string;
  query: string;
  strategy: string;
  options: Record<string, unknown>;
  createdAt: string;
  /** The process that runs it (recorded with a first heartbeat at `createdAt`). */
  owner?: RunOwner;
}

/** A change to a run. */
export interface RunUpdate {
  status?: RunStatus;
  updatedAt: string;
  finishedAt?: string | null;
  stopReason?: string | null;
  usage?: UsageTotals | null;
  error?: { code: string; message: string } | null;
  heartbeatAt?: string | null;
}

/** Runs and their outcomes. */
export interface RunStore {
  create(run: NewRun): RunRecord;
  get(id: string): RunRecord | undefined;
  update(id: string, update: RunUpdate): RunRecord;
  /** Newest first. */
  list(options?: { limit?: number; status?: RunStatus }): RunRecord[];
  /**
   * Takes a run up again for `owner` (the lease): only a run that is `interrupted`, `cancelled`
   * or `failed` becomes `running` again, atomically; returns null when the run is in another
   * state (still running elsewhere, completed) or does not exist.
   */
  claim(id: string, owner: RunOwner, now: string): RunRecord | null;
  /** Resolves a unique id prefix to a run id (as `git` does for commits). */
  resolveId(prefix: string): string;
}

/** Options of {@link EventLog.list}. */
export interface EventQuery {
  /** Only events with `seq` greater than this. */
  afterSeq?: number;
  limit?: number;
  types?: readonly string[];
}

/** The append-only event log. */
export interface EventLog {
  /** Appends an event, stamping the next `seq` of its run. */
  append(runId: string, event: EventInput, ts: string): DossierEvent;
  list(runId: string, query?: EventQuery): DossierEvent[];
  /** The highest `seq` of a run (0 when it has none). */
  lastSeq(runId: string): number;
  /** Calls `listener` for each event appended to `runId` from now on; returns an unsubscribe. */
  subscribe(runId: string, listener: (event: DossierEvent) => void): () => void;
}

/** A key/value cache with expiry. */
export interface Cache {
  get<T = unknown>(namespace: string, key: string, nowMs: number): T | undefined;
  set(namespace: string, key: string, value: unknown, options: { nowMs: number; ttlMs?: number }): void;
  delete(namespace: string, key: string): void;
  /** Removes expired entries; returns how many. */
  purgeExpired(nowMs: number): number;
}

/** Everything a run needs to persist. */
export interface Store {
  runs: RunStore;
  events: EventLog;
  cache: Cache;
  /** The step journal of one run. */
  journal(runId: string): StepJournal;
  /** Where the store lives (a path, or `:memory:`). */
  location: string;
  close(): void;
}
