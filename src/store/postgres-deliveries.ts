/**
 * The webhook outbox on PostgreSQL. A lease takes rows with `FOR UPDATE SKIP LOCKED`, so of
 * processes leasing at once each delivery goes to one.
 */

import { DossierError } from "../core/errors.ts";
import { type DeliveryRow, deliveryFromRow } from "./delivery-row.ts";
import type { PostgresDatabase } from "./postgres-database.ts";
import type { DeliveryStore } from "./types.ts";

/** Creates the PostgreSQL DeliveryStore. */
export function createPostgresDeliveries(db: PostgresDatabase): DeliveryStore {
  return {
    async add(deliveries) {
      if (deliveries.length === 0) return [];
      const values: unknown[] = [];
      const tuples = deliveries.map((d, i) => {
        values.push(d.id, d.runId, d.eventType, d.eventKey, d.url, d.body, d.maxAttempts, d.createdAt);
        const p = (k: number) => `$${i * 8 + k}`;
        return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, 'pending', '[]', ${p(7)}, ${p(8)}, ${p(8)}, ${p(8)})`;
      });
      try {
        const { rows } = await db.query<DeliveryRow>(
          `INSERT INTO webhook_deliveries (id, run_id, event_type, event_key, url, body, state, attempts_json,
             max_attempts, next_attempt_at, created_at, updated_at)
           VALUES ${tuples.join(", ")}
           ON CONFLICT (event_key) DO NOTHING RETURNING *`,
          values,
        );
        return rows.map(deliveryFromRow);
      } catch (cause) {
        throw new DossierError("STORE_ERROR", `cannot add webhook deliveries: ${(cause as Error).message}`, {
          cause,
        });
      }
    },
    async lease({ now, until, token, limit, runId }) {
      const { rows } = await db.query<DeliveryRow>(
        `UPDATE webhook_deliveries SET lease_token = $1, lease_until = $2
         WHERE id IN (SELECT id FROM webhook_deliveries
           WHERE state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
             AND ($4::text IS NULL OR run_id = $4)
           ORDER BY next_attempt_at, id LIMIT $5 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [token, until, now, runId ?? null, limit],
      );
      return rows.map(deliveryFromRow).sort((a, b) => a.id.localeCompare(b.id));
    },
    async record(id, token, attempt, next) {
      const { rowCount } = await db.query(
        `UPDATE webhook_deliveries SET attempts_json = (attempts_json::jsonb || jsonb_build_array($1::jsonb))::text,
           state = $2, next_attempt_at = $3, updated_at = $4,
           delivered_at = CASE WHEN $2 = 'delivered' THEN $4 ELSE delivered_at END,
           lease_token = NULL, lease_until = NULL
         WHERE id = $5 AND lease_token = $6`,
        [JSON.stringify(attempt), next.state, next.nextAttemptAt, attempt.at, id, token],
      );
      return rowCount === 1;
    },
    async list(runId) {
      const { rows } = await db.query<DeliveryRow>(
        "SELECT * FROM webhook_deliveries WHERE run_id = $1 ORDER BY created_at, id",
        [runId],
      );
      return rows.map(deliveryFromRow);
    },
    async nextDue() {
      const { rows } = await db.query<{ due: string | null }>(
        "SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE state = 'pending'",
      );
      return rows[0]?.due ?? null;
    },
  };
}
