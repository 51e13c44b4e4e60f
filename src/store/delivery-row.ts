/**
 * A stored webhook delivery as both backends hold it (`webhook_deliveries`: times as ISO text,
 * attempts as a JSON array) and the record it reads back as.
 */

import type { DeliveryAttempt, DeliveryRecord, DeliveryState } from "./types.ts";

/** A row of `webhook_deliveries`. */
export interface DeliveryRow {
  id: string;
  run_id: string;
  event_type: string;
  event_key: string;
  url: string;
  body: string;
  state: string;
  attempts_json: string;
  max_attempts: number | string;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** The record of a row. */
export function deliveryFromRow(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    runId: row.run_id,
    eventType: row.event_type,
    eventKey: row.event_key,
    url: row.url,
    body: row.body,
    state: row.state as DeliveryState,
    attempts: JSON.parse(row.attempts_json) as DeliveryAttempt[],
    maxAttempts: Number(row.max_attempts),
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}
