/**
 * Putting a run's status change in the webhook outbox: one delivery per webhook of the run
 * (`options.webhooks`, stored with the run), its body the event as it will be sent at every
 * attempt. The event key (run, type, when, URL) makes adding the same change twice add nothing.
 */

import { randomBytes } from "node:crypto";
import type { RunRecord } from "../core/run.ts";
import type { DeliveryRecord, NewDelivery, Store } from "../store/types.ts";
import { webhookEvent } from "./event.ts";

/** The webhooks a run was started with (its stored options). */
export function webhooksOf(record: RunRecord): string[] {
  const list = record.options.webhooks;
  return Array.isArray(list) ? list.filter((u): u is string => typeof u === "string") : [];
}

/** A new `webhook-id`: `msg_` and 32 hex digits (no `.`, as the signature's layout needs). */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString("hex")}`;
}

/** The deliveries announcing `record`'s status (none when it is not announced or has no webhooks). */
export function deliveriesOf(
  record: RunRecord,
  options: { now: string; maxAttempts: number; newId?: () => string },
): NewDelivery[] {
  const urls = webhooksOf(record);
  if (urls.length === 0) return [];
  const occurredAt = record.finishedAt ?? record.updatedAt;
  const event = webhookEvent(record, occurredAt);
  if (!event) return [];
  const body = JSON.stringify(event);
  return urls.map((url) => ({
    id: (options.newId ?? newMessageId)(),
    runId: record.id,
    eventType: event.type,
    eventKey: `${record.id}|${event.type}|${occurredAt}|${url}`,
    url,
    body,
    createdAt: options.now,
    maxAttempts: options.maxAttempts,
  }));
}

/** Stores the deliveries announcing `record`'s status; resolves to those added. */
export function announce(
  store: Store,
  record: RunRecord,
  options: { now: string; maxAttempts: number },
): Promise<DeliveryRecord[]> {
  const deliveries = deliveriesOf(record, options);
  return deliveries.length ? store.deliveries.add(deliveries) : Promise.resolve([]);
}
