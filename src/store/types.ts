/**
 * The store port: runs, their event logs, step journals and the cache. Every operation is
 * asynchronous, so a backend may live in this process (SQLite, the embedded default) or behind
 * a network (PostgreSQL). Every backend passes the same contract suite (`test/store/contract.ts`).
 */

import type { DossierEvent, EventInput } from "../core/events.ts";
import type { JournalEntry } from "../core/journal.ts";
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
  /**
   * Enqueued for a worker: the run is created `queued`, without owner or heartbeat (`owner` is
   * ignored). A worker takes it up later by creating it again, not queued (see {@link RunStore.create}).
   */
  queued?: boolean;
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

/** Options of {@link RunStore.claim}. */
export interface ClaimOptions {
  /**
   * Also take a `running` run whose heartbeat is older than this (ISO): its owner is presumed
   * gone (a worker killed mid-run). Without it only ended runs can be claimed.
   */
  staleBefore?: string;
  /**
   * Take the run only from one of these statuses (default: `interrupted`, `cancelled`,
   * `failed`). `awaiting-review` is taken only when named: only an answer to its review takes it.
   */
  from?: readonly ClaimableStatus[];
}

/** Statuses a run can be claimed from. */
export type ClaimableStatus = "interrupted" | "cancelled" | "failed" | "awaiting-review";

/** The statuses a claim takes a run from by default. */
export const DEFAULT_CLAIMABLE: readonly ClaimableStatus[] = ["interrupted", "cancelled", "failed"];

/** What {@link RunStore.heartbeat} tells the owner of a run. */
export interface HeartbeatAnswer {
  /** False when the run is no longer `running` under this owner (ended, or taken over). */
  held: boolean;
  /** The reason of a cancellation requested from anywhere, or null. */
  cancelRequested: string | null;
}

/** Runs and their outcomes. */
export interface RunStore {
  /**
   * Creates a `running` run (or, with `run.queued`, a `queued` one). When the id names a `queued`
   * run, a running create takes that run up instead, atomically: it becomes `running` under
   * `run.owner` with the given query, strategy and options, keeping its `createdAt` (when it was
   * enqueued). STORE_ERROR when the id exists in any other state — so of two workers starting one
   * queued run, exactly one wins, and a run cancelled while queued is never started.
   *
   * A version of a report is held by one run: when `run.options.strategyOptions` names a
   * `reportRoot` (the run that wrote version 1) and a `version`, and another run (any status)
   * already names the same pair, the create is CONFLICT, atomically — of two refreshes writing
   * one version at once, exactly one is created.
   */
  create(run: NewRun): Promise<RunRecord>;
  get(id: string): Promise<RunRecord | undefined>;
  /** Changes a run; NOT_FOUND when there is none. */
  update(id: string, update: RunUpdate): Promise<RunRecord>;
  /** Newest first (ties by id, descending); at most 50 by default. */
  list(options?: { limit?: number; status?: RunStatus }): Promise<RunRecord[]>;
  /**
   * Takes a run up for `owner` (the lease), atomically: a run that is `interrupted`, `cancelled`
   * or `failed` (or in the statuses `from` names) — or, with `staleBefore`, `running` with an
   * older heartbeat — becomes `running`
   * under `owner` with its cancellation request cleared. Null when the run is in another state
   * (running and alive, completed), does not exist, or another claimer won.
   */
  claim(id: string, owner: RunOwner, now: string, options?: ClaimOptions): Promise<RunRecord | null>;
  /**
   * The owner's heartbeat: records `now` when the run is still `running` under `owner` and says
   * whether it is still held and whether a cancellation was requested.
   */
  heartbeat(id: string, owner: RunOwner, now: string): Promise<HeartbeatAnswer>;
  /**
   * Cancels a run: a `queued` run is cancelled at once (status `cancelled`, finished `now`, stop
   * reason `cancelled: <reason>`; no worker will start it), the owner of a `running` run is asked
   * to (it sees the request in its next heartbeat). False when the run is neither.
   */
  requestCancel(id: string, reason: string, now: string): Promise<boolean>;
  /** Resolves a unique id prefix to a run id (as `git` does for commits). */
  resolveId(prefix: string): Promise<string>;
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
  /**
   * Appends an event, stamping the next `seq` of its run: contiguous from 1 whatever the number
   * of writers and processes; appends one caller issues without waiting are stored in the order
   * issued. STORE_ERROR for a run that does not exist.
   */
  append(runId: string, event: EventInput, ts: string): Promise<DossierEvent>;
  /** Events in `seq` order. */
  list(runId: string, query?: EventQuery): Promise<DossierEvent[]>;
  /** The highest `seq` of a run (0 when it has none). */
  lastSeq(runId: string): Promise<number>;
  /**
   * Calls `listener` for each event this store appends to `runId` from now on; returns an
   * unsubscribe. Appends made elsewhere are read with `list` and a cursor (`afterSeq`).
   */
  subscribe(runId: string, listener: (event: DossierEvent) => void): () => void;
}

/** The step journal of one run, as stored. */
export interface StoredJournal {
  get(key: string): Promise<JournalEntry | undefined>;
  /** Stores an entry under `key` (a later put under the same key replaces it). */
  put(key: string, entry: JournalEntry): Promise<void>;
  /** Every entry of the run (what a resumed run replays). */
  entries(): Promise<Map<string, JournalEntry>>;
}

/** A key/value cache with expiry. */
export interface Cache {
  get<T = unknown>(namespace: string, key: string, nowMs: number): Promise<T | undefined>;
  set(
    namespace: string,
    key: string,
    value: unknown,
    options: { nowMs: number; ttlMs?: number },
  ): Promise<void>;
  delete(namespace: string, key: string): Promise<void>;
  /** Removes expired entries; returns how many. */
  purgeExpired(nowMs: number): Promise<number>;
}

/** Where a webhook delivery stands: still to be sent, answered 2xx, or given up. */
export type DeliveryState = "pending" | "delivered" | "failed";

/** One attempt to deliver a webhook. */
export interface DeliveryAttempt {
  /** When the attempt started (ISO). */
  at: string;
  /** The receiver's HTTP status, or null when none came (refused, timed out, connection lost). */
  status: number | null;
  /** Why the attempt failed, or null when it succeeded. */
  error: string | null;
  durationMs: number;
}

/** A webhook delivery to add to the outbox. */
export interface NewDelivery {
  /** The `webhook-id`: the same for every attempt. */
  id: string;
  runId: string;
  /** `run.completed`, `run.failed`, … */
  eventType: string;
  /** One delivery per key: adding a key already stored adds nothing. */
  eventKey: string;
  url: string;
  /** The exact body sent (and signed) at every attempt. */
  body: string;
  createdAt: string;
  /** Attempts at most before the delivery is given up. */
  maxAttempts: number;
}

/** A stored webhook delivery and its attempts. */
export interface DeliveryRecord extends NewDelivery {
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** When the next attempt is due (ISO); null once delivered or given up. */
  nextAttemptAt: string | null;
  updatedAt: string;
  deliveredAt: string | null;
}

/** Options of {@link DeliveryStore.lease}. */
export interface LeaseOptions {
  /** Pending deliveries due at or before this (ISO) whose lease, if any, ended by then. */
  now: string;
  /** The lease lasts until this (ISO): no other process takes them before. */
  until: string;
  /** Names this lease; {@link DeliveryStore.record} must give it back. */
  token: string;
  limit: number;
  /** Only the deliveries of this run. */
  runId?: string;
}

/** The webhook outbox: deliveries of run events, each attempt recorded. */
export interface DeliveryStore {
  /** Adds the deliveries whose `eventKey` is not stored yet; resolves to those added. */
  add(deliveries: readonly NewDelivery[]): Promise<DeliveryRecord[]>;
  /**
   * Takes up to `limit` pending deliveries that are due, atomically: of processes leasing at
   * once, each delivery goes to one until its lease ends.
   */
  lease(options: LeaseOptions): Promise<DeliveryRecord[]>;
  /**
   * Records an attempt of a leased delivery with its new state and next attempt, and ends the
   * lease. False (nothing recorded) when the lease is no longer `token`'s.
   */
  record(
    id: string,
    token: string,
    attempt: DeliveryAttempt,
    next: { state: DeliveryState; nextAttemptAt: string | null },
  ): Promise<boolean>;
  /** The deliveries of a run, oldest first. */
  list(runId: string): Promise<DeliveryRecord[]>;
  /** When the earliest pending delivery is due (ISO), or null when none is pending. */
  nextDue(): Promise<string | null>;
}

/** Everything a run needs to persist. */
export interface Store {
  /** The backend's name (`sqlite`, `postgres`). */
  kind: string;
  runs: RunStore;
  events: EventLog;
  cache: Cache;
  /** The webhook outbox. */
  deliveries: DeliveryStore;
  /** The step journal of one run. */
  journal(runId: string): StoredJournal;
  /** Where the store lives (a path, `:memory:`, or a database URL without its password). */
  location: string;
  /** Resolves once the store can be used (connected, migrated); STORE_ERROR when it cannot. */
  ready(): Promise<void>;
  /** Closes the store (idempotent). */
  close(): Promise<void>;
}
