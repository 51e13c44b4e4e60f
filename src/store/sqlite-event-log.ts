/**
 * The append-only EventLog on SQLite. `seq` is assigned inside the INSERT statement (SQLite runs
 * one writer at a time), so it is contiguous per run even with several writers and processes;
 * each append runs to completion before the call returns, so appends keep their call order.
 */

import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../core/errors.ts";
import { type DossierEvent, dossierEventSchema, type EventInput } from "../core/events.ts";
import type { EventLog, EventQuery } from "./types.ts";

interface EventRow {
  run_id: string;
  seq: number;
  ts: string;
  type: string;
  data_json: string;
}

/** Creates the SQLite EventLog. */
export function createSqliteEventLog(db: DatabaseSync): EventLog {
  const insert = db.prepare(
    `INSERT INTO events (run_id, seq, ts, type, data_json)
     SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM events WHERE run_id = ?
     RETURNING seq`,
  );
  const last = db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE run_id = ?");
  const listeners = new Map<string, Set<(event: DossierEvent) => void>>();

  return {
    async append(runId: string, event: EventInput, ts: string) {
      let seq: number;
      try {
        const row = insert.get(runId, ts, event.type, JSON.stringify(event), runId) as { seq: number };
        seq = row.seq;
      } catch (cause) {
        throw new DossierError(
          "STORE_ERROR",
          `cannot append ${event.type} to run ${runId}: ${(cause as Error).message}`,
          {
            cause,
          },
        );
      }
      const stored = { ...event, runId, seq, ts } as DossierEvent;
      for (const listener of listeners.get(runId) ?? []) {
        try {
          listener(stored);
        } catch {
          // A failing subscriber must not undo or fail the append; the event is stored.
        }
      }
      return stored;
    },
    async list(runId: string, query: EventQuery = {}) {
      const where = ["run_id = ?", "seq > ?"];
      const params: (string | number)[] = [runId, query.afterSeq ?? 0];
      if (query.types?.length) {
        where.push(`type IN (${query.types.map(() => "?").join(", ")})`);
        params.push(...query.types);
      }
      const limit = query.limit ?? -1;
      const rows = db
        .prepare(`SELECT * FROM events WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ?`)
        .all(...params, limit) as unknown as EventRow[];
      return rows.map((row) =>
        dossierEventSchema.parse({
          ...JSON.parse(row.data_json),
          runId: row.run_id,
          seq: row.seq,
          ts: row.ts,
        }),
      ) as unknown as DossierEvent[];
    },
    async lastSeq(runId: string) {
      return (last.get(runId) as { seq: number }).seq;
    },
    subscribe(runId, listener) {
      let set = listeners.get(runId);
      if (!set) {
        set = new Set();
        listeners.set(runId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(runId);
      };
    },
  };
}
