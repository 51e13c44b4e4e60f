/**
 * The append-only EventLog on PostgreSQL. `seq` comes from the run's own counter, bumped and used
 * in one statement: the row lock orders writers from any number of processes, so a run's
 * sequence is contiguous. An append whose connection is lost is sent again, unless the run's
 * last event shows it was applied (same time and data). Appends this store is asked for are sent one run at a time in the
 * order asked, so a caller that does not wait between appends keeps its order.
 */

import { DossierError } from "../core/errors.ts";
import { type DossierEvent, dossierEventSchema, type EventInput } from "../core/events.ts";
import type { PostgresDatabase } from "./postgres-database.ts";
import type { EventLog, EventQuery } from "./types.ts";

interface EventRow {
  run_id: string;
  seq: number;
  ts: string;
  type: string;
  data_json: string;
}

/** Creates the PostgreSQL EventLog. */
export function createPostgresEventLog(db: PostgresDatabase): EventLog {
  const listeners = new Map<string, Set<(event: DossierEvent) => void>>();
  /** The last append under way per run (appends of one run go out in order). */
  const tails = new Map<string, Promise<unknown>>();

  /**
   * The seq `event` was stored under when it is the run's last event (an append whose answer
   * was lost with its connection may have been applied), else null.
   */
  const alreadyAppended = async (runId: string, ts: string, data: string): Promise<number | null> => {
    const { rows } = await db.query<{ seq: number; ts: string; data_json: string }>(
      "SELECT seq, ts, data_json FROM events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1",
      [runId],
      { retry: false },
    );
    const last = rows[0];
    return last && last.ts === ts && last.data_json === data ? last.seq : null;
  };

  const insert = async (runId: string, event: EventInput, ts: string): Promise<DossierEvent> => {
    let seq: number | undefined;
    const data = JSON.stringify(event);
    try {
      // Sent again when its connection is lost or terminated, unless it was applied already.
      seq = await db.retrying(async (attempt) => {
        if (attempt > 0) {
          const stored = await alreadyAppended(runId, ts, data);
          if (stored !== null) return stored;
        }
        const { rows } = await db.query<{ seq: number }>(
          `WITH next AS (UPDATE runs SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq)
           INSERT INTO events (run_id, seq, ts, type, data_json)
           SELECT $1, last_seq, $2, $3, $4 FROM next RETURNING seq`,
          [runId, ts, event.type, data],
          { retry: false },
        );
        return rows[0]?.seq;
      });
    } catch (cause) {
      throw new DossierError(
        "STORE_ERROR",
        `cannot append ${event.type} to run ${runId}: ${(cause as Error).message}`,
        { cause },
      );
    }
    if (seq === undefined) {
      throw new DossierError("STORE_ERROR", `cannot append ${event.type} to run ${runId}: no such run`, {
        details: { runId },
      });
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
  };

  return {
    append(runId, event, ts) {
      const previous = tails.get(runId) ?? Promise.resolve();
      const appended = previous.then(
        () => insert(runId, event, ts),
        () => insert(runId, event, ts),
      );
      tails.set(runId, appended);
      const forget = () => {
        if (tails.get(runId) === appended) tails.delete(runId);
      };
      appended.then(forget, forget);
      return appended;
    },
    async list(runId: string, query: EventQuery = {}) {
      const values: unknown[] = [runId, query.afterSeq ?? 0];
      let where = "run_id = $1 AND seq > $2";
      if (query.types?.length) {
        values.push([...query.types]);
        where += ` AND type = ANY($${values.length}::text[])`;
      }
      values.push(query.limit ?? null);
      const { rows } = await db.query<EventRow>(
        `SELECT run_id, seq, ts, type, data_json FROM events WHERE ${where} ORDER BY seq LIMIT $${values.length}`,
        values,
      );
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
      const { rows } = await db.query<{ seq: number }>(
        "SELECT COALESCE(MAX(seq), 0)::int AS seq FROM events WHERE run_id = $1",
        [runId],
      );
      return rows[0]!.seq;
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
