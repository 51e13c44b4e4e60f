/**
 * The webhook outbox on SQLite. One writer at a time holds the database, so a lease (one
 * UPDATE … RETURNING) is atomic across processes sharing the file.
 */

import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../core/errors.ts";
import { type DeliveryRow, deliveryFromRow } from "./delivery-row.ts";
import type { DeliveryStore } from "./types.ts";

/** Creates the SQLite DeliveryStore (each call runs synchronously; the promises are already settled). */
export function createSqliteDeliveries(db: DatabaseSync): DeliveryStore {
  const insert = db.prepare(
    `INSERT INTO webhook_deliveries (id, run_id, event_type, event_key, url, body, state, attempts_json,
       max_attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', '[]', ?, ?, ?, ?)
     ON CONFLICT (event_key) DO NOTHING RETURNING *`,
  );
  const leaseAll = db.prepare(
    `UPDATE webhook_deliveries SET lease_token = ?, lease_until = ?
     WHERE id IN (SELECT id FROM webhook_deliveries
       WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
       ORDER BY next_attempt_at, id LIMIT ?)
     RETURNING *`,
  );
  const leaseRun = db.prepare(
    `UPDATE webhook_deliveries SET lease_token = ?, lease_until = ?
     WHERE id IN (SELECT id FROM webhook_deliveries
       WHERE run_id = ? AND state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
       ORDER BY next_attempt_at, id LIMIT ?)
     RETURNING *`,
  );
  const recordAttempt = db.prepare(
    `UPDATE webhook_deliveries SET attempts_json = json_insert(attempts_json, '$[#]', json(?)),
       state = ?, next_attempt_at = ?, updated_at = ?,
       delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END,
       lease_token = NULL, lease_until = NULL
     WHERE id = ? AND lease_token = ?`,
  );
  const byRun = db.prepare("SELECT * FROM webhook_deliveries WHERE run_id = ? ORDER BY created_at, id");
  const earliest = db.prepare(
    "SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE state = 'pending'",
  );
  const fail = (what: string, cause: unknown) =>
    new DossierError("STORE_ERROR", `cannot ${what}: ${(cause as Error).message}`, { cause });

  return {
    async add(deliveries) {
      let open = false;
      try {
        db.exec("BEGIN IMMEDIATE");
        open = true;
        const added = deliveries.flatMap((d) => {
          const row = insert.get(
            d.id,
            d.runId,
            d.eventType,
            d.eventKey,
            d.url,
            d.body,
            d.maxAttempts,
            d.createdAt,
            d.createdAt,
            d.createdAt,
          ) as DeliveryRow | undefined;
          return row ? [deliveryFromRow(row)] : [];
        });
        db.exec("COMMIT");
        open = false;
        return added;
      } catch (cause) {
        if (open) db.exec("ROLLBACK");
        throw fail("add webhook deliveries", cause);
      }
    },
    async lease({ now, until, token, limit, runId }) {
      const rows = (runId === undefined
        ? leaseAll.all(token, until, now, now, limit)
        : leaseRun.all(token, until, runId, now, now, limit)) as unknown as DeliveryRow[];
      return rows.map(deliveryFromRow).sort((a, b) => a.id.localeCompare(b.id));
    },
    async record(id, token, attempt, next) {
      const { changes } = recordAttempt.run(
        JSON.stringify(attempt),
        next.state,
        next.nextAttemptAt,
        attempt.at,
        next.state,
        attempt.at,
        id,
        token,
      );
      return Number(changes) === 1;
    },
    async list(runId) {
      return (byRun.all(runId) as unknown as DeliveryRow[]).map(deliveryFromRow);
    },
    async nextDue() {
      return ((earliest.get() as { due: string | null } | undefined)?.due ?? null) as string | null;
    },
  };
}
