/**
 * Catching up on status changes the outbox missed. A status is written first and its outbox rows
 * just after (status-watch.ts); a process killed between the two leaves a run that ended (or
 * awaits review) with no delivery announcing it. The server and the workers look, when their
 * deliverer starts and then every minute, at the recently updated runs of each announced status
 * and put the missing announcements in the outbox: the receiver hears of the change late, not
 * never. Adding is idempotent (the event key), so processes catching up at once, or a process
 * catching up on a row another one is about to add, add it once between them.
 */

import type { RunStatus } from "../core/run.ts";
import type { DeliveryRecord, Store } from "../store/types.ts";
import { WEBHOOK_EVENTS } from "./event.ts";
import { announce, webhooksOf } from "./outbox.ts";

/** Runs of each announced status looked at per pass, newest first. */
const RUNS_PER_STATUS = 200;

/** Options of {@link announceMissed}. */
export interface CatchUpOptions {
  now: number;
  maxAttempts: number;
  /** Runs last updated longer ago than this are left alone (ms). */
  windowMs: number;
}

/**
 * Adds the outbox rows of recently updated runs whose current status was never announced;
 * resolves to the deliveries added. A run whose record has an end time gets the event key the
 * status write would have given it (adding it again adds nothing); one without (a run awaiting
 * review) only when none of its deliveries announces that status, so that a later write to the
 * run that moves its update time does not announce the same status twice.
 */
export async function announceMissed(store: Store, options: CatchUpOptions): Promise<DeliveryRecord[]> {
  const since = options.now - options.windowMs;
  const at = { now: new Date(options.now).toISOString(), maxAttempts: options.maxAttempts };
  const added: DeliveryRecord[] = [];
  for (const [status, eventType] of Object.entries(WEBHOOK_EVENTS)) {
    const runs = await store.runs.list({ status: status as RunStatus, limit: RUNS_PER_STATUS });
    for (const run of runs) {
      if (Date.parse(run.updatedAt) < since || webhooksOf(run).length === 0) continue;
      if (run.finishedAt === null) {
        const existing = await store.deliveries.list(run.id);
        if (existing.some((d) => d.eventType === eventType)) continue;
      }
      added.push(...(await announce(store, run, at)));
    }
  }
  return added;
}
