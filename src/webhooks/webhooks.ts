/**
 * Webhooks of a Dossier: the store whose status writes put run events in the outbox and start
 * their first attempts at once, and the deliverer (polling too in long-lived processes).
 */

import type { Dispatcher } from "undici";
import type { Store } from "../store/types.ts";
import type { GuardOptions } from "../tools/fetch/ssrf-guard.ts";
import { announceMissed } from "./catch-up.ts";
import type { WebhookConfig } from "./config-schema.ts";
import { createDeliverer, type Deliverer } from "./deliverer.ts";
import { announce } from "./outbox.ts";
import { secretKey } from "./secret.ts";
import { watchRunStatuses } from "./status-watch.ts";

/** How often a started deliverer catches up on announcements a killed process missed (ms). */
export const CATCH_UP_MS = 60_000;
/** How far back the first catch-up looks (ms); later ones look back ten periods. */
const FIRST_CATCH_UP_WINDOW_MS = 24 * 60 * 60_000;

/** Options of {@link createWebhooks}. */
export interface WebhooksOptions<S extends Store> {
  store: S;
  config: WebhookConfig;
  /** As for page fetches (`allowPrivateNetwork`): private and loopback receivers are refused unless set. */
  guard: GuardOptions;
  now?: () => number;
  random?: () => number;
  pollMs?: number;
  dispatcher?: Dispatcher;
  onError?: (error: unknown) => void;
}

/** The webhooks of one Dossier. */
export interface Webhooks<S extends Store> {
  /** `options.store`, its status writes announced. */
  readonly store: S;
  readonly deliverer: Deliverer;
}

/** Builds the webhooks of a Dossier over `options.store`. */
export function createWebhooks<S extends Store>(options: WebhooksOptions<S>): Webhooks<S> {
  const now = options.now ?? Date.now;
  const { config } = options;
  const key = config.secret === undefined ? null : secretKey(config.secret.trim());
  let deliverer: Deliverer;
  const store = watchRunStatuses(
    options.store,
    async (record) => {
      const added = await announce(options.store, record, {
        now: new Date(now()).toISOString(),
        maxAttempts: config.maxAttempts,
      });
      if (added.length > 0) deliverer.kick(record.id);
    },
    options.onError,
  );
  // A started deliverer (server, worker) puts in the outbox what a process killed between a
  // status write and its outbox rows left out: at its first poll for the last day, then every
  // minute for the last ten.
  let caughtUpAt: number | null = null;
  const catchUp = async () => {
    const at = now();
    if (caughtUpAt !== null && at - caughtUpAt < CATCH_UP_MS) return;
    const windowMs = caughtUpAt === null ? FIRST_CATCH_UP_WINDOW_MS : CATCH_UP_MS * 10;
    caughtUpAt = at;
    await announceMissed(options.store, { now: at, maxAttempts: config.maxAttempts, windowMs });
  };
  deliverer = createDeliverer({
    beforePoll: catchUp,
    store: options.store,
    settings: config,
    key,
    guard: options.guard,
    now,
    ...(options.random ? { random: options.random } : {}),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  return { store, deliverer };
}
