/** Webhooks: signed Standard Webhooks callbacks of run status changes, delivered from the store's outbox. */

export * from "./config-schema.ts";
export * from "./deliverer.ts";
export * from "./event.ts";
export * from "./outbox.ts";
export * from "./run-webhooks.ts";
export * from "./schedule.ts";
export * from "./secret.ts";
export * from "./send.ts";
export * from "./sign.ts";
export * from "./status-watch.ts";
export * from "./url-schema.ts";
export * from "./urls.ts";
export * from "./webhooks.ts";
