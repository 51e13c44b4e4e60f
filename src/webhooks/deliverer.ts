/**
 * The deliverer: takes due deliveries from the outbox under a lease, signs and sends each
 * attempt, and records it (status, error, time) with the delivery's next step — delivered,
 * retried later with backoff, or given up. A run's first attempts start as soon as its status
 * is stored (`kick`); a long-lived process (`dossier serve`, `dossier worker`) also polls the
 * outbox (`start`), which retries and picks up what a process that ended left pending.
 * Without a signing key it sends nothing and leaves every delivery pending.
 */

import { randomBytes } from "node:crypto";
import type { Dispatcher } from "undici";
import type { DeliveryRecord, Store } from "../store/types.ts";
import type { GuardOptions } from "../tools/fetch/ssrf-guard.ts";
import type { WebhookConfig } from "./config-schema.ts";
import { nextStep } from "./schedule.ts";
import { signedHeaders } from "./sign.ts";

/** How often a started deliverer looks at the outbox, by default. */
export const DEFAULT_POLL_MS = 5_000;
/** Deliveries leased at once. */
const LEASE_BATCH = 16;

/** Options of {@link createDeliverer}. */
export interface DelivererOptions {
  store: Store;
  settings: Pick<WebhookConfig, "maxAttempts" | "baseDelayMs" | "maxDelayMs" | "timeoutMs">;
  /** The HMAC key (the secret's decoded bytes); null: nothing is sent. */
  key: Buffer | null;
  guard: GuardOptions;
  now?: () => number;
  random?: () => number;
  pollMs?: number;
  /** A dispatcher made by `createGuardedAgent` (tests: a resolver); default one per attempt. */
  dispatcher?: Dispatcher;
  /** Told of an outbox that could not be read or written (the deliverer keeps going). */
  onError?: (error: unknown) => void;
  /** Run before each poll of a started deliverer (catching up on missed announcements). */
  beforePoll?: () => Promise<void>;
}

/** A deliverer. */
export interface Deliverer {
  /** Attempts the due deliveries of `runId` now, in the background. */
  kick(runId: string): void;
  /** Attempts every due delivery (of `runId` only, when given) once; resolves to the attempts made. */
  deliverDue(runId?: string): Promise<DeliveryRecord[]>;
  /** Polls the outbox every `pollMs` until closed. */
  start(): void;
  /** True while attempts are under way. */
  busy(): boolean;
  /** Waits up to `waitMs` for the attempts under way (and those they lead to) to end. */
  settle(waitMs: number): Promise<void>;
  /**
   * Stops polling and taking deliveries, waits up to `waitMs` for attempts under way, then
   * abandons the rest: their leases lapse and another process delivers them.
   */
  close(waitMs?: number): Promise<void>;
}

/** Creates a deliverer over `options.store`. */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const leaseMs = options.settings.timeoutMs + 30_000;
  const token = randomBytes(12).toString("hex");
  const leaving = new AbortController();
  const under = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const report = (error: unknown) => options.onError?.(error);

  /** One attempt of a leased delivery, recorded; null when the process left during it. */
  const attempt = async (delivery: DeliveryRecord, key: Buffer): Promise<DeliveryRecord | null> => {
    const startedMs = now();
    const timestamp = Math.floor(startedMs / 1000);
    // The sender (and the SSRF guard) loads with the first attempt.
    const { sendWebhook } = await import("./send.ts");
    const result = await sendWebhook({
      url: delivery.url,
      headers: signedHeaders(key, { id: delivery.id, timestamp, body: delivery.body }),
      body: delivery.body,
      timeoutMs: options.settings.timeoutMs,
      guard: options.guard,
      signal: leaving.signal,
      now,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
    // Abandoned: the lease lapses and the attempt is made again elsewhere, not counted.
    if (leaving.signal.aborted && !result.ok) return null;
    const made = delivery.attempts.length + 1;
    const next = nextStep(
      made,
      result,
      { ...options.settings, maxAttempts: delivery.maxAttempts },
      now(),
      random,
    );
    const record = {
      at: new Date(startedMs).toISOString(),
      status: result.status,
      error: result.error,
      durationMs: result.durationMs,
    };
    const kept = await options.store.deliveries.record(delivery.id, token, record, next);
    return kept ? { ...delivery, ...next, attempts: [...delivery.attempts, record] } : null;
  };

  const deliverDue = async (runId?: string): Promise<DeliveryRecord[]> => {
    const key = options.key;
    if (!key || closed) return [];
    const at = now();
    const leased = await options.store.deliveries.lease({
      now: new Date(at).toISOString(),
      until: new Date(at + leaseMs).toISOString(),
      token,
      limit: LEASE_BATCH,
      ...(runId === undefined ? {} : { runId }),
    });
    const made = await Promise.all(
      leased.map((d) =>
        attempt(d, key).catch((error: unknown) => {
          report(error);
          return null;
        }),
      ),
    );
    return made.filter((d): d is DeliveryRecord => d !== null);
  };

  const track = (work: Promise<unknown>) => {
    const tracked = work.catch(report).finally(() => under.delete(tracked));
    under.add(tracked);
  };

  const settle = async (waitMs: number) => {
    // Real time, whatever clock the deliverer's records use.
    const deadline = performance.now() + waitMs;
    while (under.size > 0 && performance.now() < deadline) {
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...under]),
        new Promise((resolve) => {
          wait = setTimeout(resolve, Math.max(0, deadline - performance.now()));
        }),
      ]);
      clearTimeout(wait);
    }
  };

  const poll = () => {
    timer = null;
    if (closed) return;
    const before = options.beforePoll?.().catch(report) ?? Promise.resolve();
    track(
      before
        .then(() => deliverDue())
        .finally(() => {
          if (!closed) {
            timer = setTimeout(poll, pollMs);
            timer.unref();
          }
        }),
    );
  };

  return {
    kick(runId) {
      if (!closed && options.key) track(deliverDue(runId));
    },
    deliverDue,
    busy: () => under.size > 0,
    start() {
      if (closed || timer || !options.key) return;
      timer = setTimeout(poll, 0);
      timer.unref();
    },
    settle,
    async close(waitMs = 0) {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await settle(waitMs);
      leaving.abort();
      await Promise.allSettled([...under]);
    },
  };
}
