/**
 * Webhooks of a Dossier: the store whose status writes put run events in the outbox and start
 * their first attempts at once, and the deliverer (polling too in long-lived processes).
 */

import type { Dispatcher } from "undici";
import type { Store } from "../store/types.ts";
import type { GuardOptions } from "../tools/fetch/ssrf-guard.ts";
import type { WebhookConfig } from "./config-schema.ts";
import { createDeliverer, type Deliverer } from "./deliverer.ts";
import { announce } from "./outbox.ts";
import { secretKey } from "./secret.ts";
import { watchRunStatuses } from "./status-watch.ts";

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
  deliverer = createDeliverer({
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
