/**
 * RunStore on PostgreSQL. Claims, heartbeats and cancellation requests are single conditional
 * UPDATEs, so two processes racing for one run cannot both win. A create or claim whose
 * connection is lost is sent again unless the row shows it was applied.
 */

import { DossierError } from "../core/errors.ts";
import type { RunRecord } from "../core/run.ts";
import type { PostgresDatabase } from "./postgres-database.ts";
import { ownerText } from "./run-owner.ts";
import {
  existsError,
  pickRunId,
  prefixPatterns,
  type RunRow,
  reportVersionOf,
  runFromRow,
  versionTakenError,
} from "./run-row.ts";
import { DEFAULT_CLAIMABLE, type RunStore } from "./types.ts";

const COLUMNS =
  "id, query, strategy, options_json, status, created_at, updated_at, finished_at, stop_reason, usage_json, error_json, owner_json, heartbeat_at";

/** Creates the PostgreSQL RunStore. */
export function createPostgresRunStore(db: PostgresDatabase): RunStore {
  const get = async (id: string): Promise<RunRecord | undefined> => {
    const { rows } = await db.query<RunRow>(`SELECT ${COLUMNS} FROM runs WHERE id = $1`, [id]);
    return rows[0] ? runFromRow(rows[0]) : undefined;
  };
  /** The row of run `id`, read once (inside a retried operation). */
  const rowOnce = async (id: string): Promise<RunRow | undefined> =>
    (await db.query<RunRow>(`SELECT ${COLUMNS} FROM runs WHERE id = $1`, [id], { retry: false })).rows[0];

  return {
    async create(run) {
      const owner = run.owner && !run.queued ? run.owner : null;
      let rows: RunRow[];
      try {
        // A running create takes up a queued run of the same id (see RunStore.create); any other
        // existing run makes the upsert return nothing. Sent again when its connection is lost,
        // unless the run is there as this create wrote it.
        rows = await db.retrying(async (attempt) => {
          if (attempt > 0) {
            const found = await rowOnce(run.id);
            const as = { status: run.queued ? "queued" : "running", owner: owner ? ownerText(owner) : null };
            const written =
              found?.created_at === run.createdAt &&
              found.status === as.status &&
              found.owner_json === as.owner;
            if (written) return [found];
          }
          const { rows: upserted } = await db.query<RunRow>(
            `INSERT INTO runs (id, query, strategy, options_json, status, created_at, updated_at, owner_json, heartbeat_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8)
             ON CONFLICT (id) DO UPDATE SET status = 'running', query = EXCLUDED.query, strategy = EXCLUDED.strategy,
               options_json = EXCLUDED.options_json, updated_at = EXCLUDED.updated_at, owner_json = EXCLUDED.owner_json,
               heartbeat_at = EXCLUDED.heartbeat_at
             WHERE runs.status = 'queued' AND EXCLUDED.status = 'running'
             RETURNING ${COLUMNS}`,
            [
              run.id,
              run.query,
              run.strategy,
              JSON.stringify(run.options),
              run.queued ? "queued" : "running",
              run.createdAt,
              owner ? ownerText(owner) : null,
              owner ? run.createdAt : null,
            ],
            { retry: false },
          );
          return upserted;
        });
      } catch (cause) {
        const version = reportVersionOf(run.options);
        const constraint = (cause as { cause?: { constraint?: unknown } }).cause?.constraint;
        if (version && constraint === "runs_by_report_version") {
          const { rows: held } = await db.query<{ id: string }>(
            `SELECT id FROM runs WHERE (options_json::jsonb #>> '{strategyOptions,reportRoot}') = $1
               AND (options_json::jsonb #>> '{strategyOptions,version}') = $2`,
            [version.root, String(version.version)],
          );
          throw versionTakenError(run.id, run.options, held[0]?.id);
        }
        throw new DossierError("STORE_ERROR", `cannot create run ${run.id}: ${(cause as Error).message}`, {
          cause,
        });
      }
      if (!rows[0]) throw existsError(run.id, (await get(run.id))?.status);
      return runFromRow(rows[0]);
    },
    get,
    async update(id, update) {
      const sets: string[] = [];
      const values: (string | null)[] = [];
      const put = (column: string, value: string | null) => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      };
      put("updated_at", update.updatedAt);
      if (update.status !== undefined) put("status", update.status);
      if (update.finishedAt !== undefined) put("finished_at", update.finishedAt);
      if (update.stopReason !== undefined) put("stop_reason", update.stopReason);
      if (update.usage !== undefined)
        put("usage_json", update.usage === null ? null : JSON.stringify(update.usage));
      if (update.error !== undefined)
        put("error_json", update.error === null ? null : JSON.stringify(update.error));
      if (update.heartbeatAt !== undefined) put("heartbeat_at", update.heartbeatAt);
      values.push(id);
      const { rows } = await db.query<RunRow>(
        `UPDATE runs SET ${sets.join(", ")} WHERE id = $${values.length} RETURNING ${COLUMNS}`,
        values,
      );
      if (!rows[0]) throw new DossierError("NOT_FOUND", `no run ${id}`, { details: { runId: id } });
      return runFromRow(rows[0]);
    },
    async claim(id, owner, now, options = {}) {
      const holder = ownerText(owner);
      // Sent again when its connection is lost, unless the run is already claimed by this claim.
      const row = await db.retrying(async (attempt) => {
        const { rows } = await db.query<RunRow>(
          `UPDATE runs SET status = 'running', owner_json = $1, heartbeat_at = $2, updated_at = $2,
             finished_at = NULL, stop_reason = NULL, error_json = NULL, cancel_reason = NULL, cancel_requested_at = NULL
           WHERE id = $3 AND (status = ANY($5::text[])
             OR ($4::text IS NOT NULL AND status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < $4::text)))
           RETURNING ${COLUMNS}`,
          [holder, now, id, options.staleBefore ?? null, [...(options.from ?? DEFAULT_CLAIMABLE)]],
          { retry: false },
        );
        if (rows[0] || attempt === 0) return rows[0];
        const found = await rowOnce(id);
        const mine = found?.status === "running" && found.owner_json === holder && found.heartbeat_at === now;
        return mine ? found : undefined;
      });
      return row ? runFromRow(row) : null;
    },
    async heartbeat(id, owner, now) {
      const { rows } = await db.query<{ cancel_reason: string | null }>(
        `UPDATE runs SET heartbeat_at = $1, updated_at = $1
         WHERE id = $2 AND status = 'running' AND owner_json = $3 RETURNING cancel_reason`,
        [now, id, ownerText(owner)],
      );
      return { held: rows.length === 1, cancelRequested: rows[0]?.cancel_reason ?? null };
    },
    async requestCancel(id, reason, now) {
      const { rowCount } = await db.query(
        `UPDATE runs SET cancel_reason = $1, cancel_requested_at = $2,
           status = CASE status WHEN 'queued' THEN 'cancelled' ELSE status END,
           finished_at = CASE status WHEN 'queued' THEN $2 ELSE finished_at END,
           stop_reason = CASE status WHEN 'queued' THEN 'cancelled: ' || $1 ELSE stop_reason END,
           updated_at = CASE status WHEN 'queued' THEN $2 ELSE updated_at END
         WHERE id = $3 AND status IN ('queued', 'running')`,
        [reason, now, id],
      );
      return rowCount === 1;
    },
    async list(options = {}) {
      const limit = options.limit ?? 50;
      const { rows } = options.status
        ? await db.query<RunRow>(
            `SELECT ${COLUMNS} FROM runs WHERE status = $1 ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" DESC LIMIT $2`,
            [options.status, limit],
          )
        : await db.query<RunRow>(
            `SELECT ${COLUMNS} FROM runs ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" DESC LIMIT $1`,
            [limit],
          );
      return rows.map(runFromRow);
    },
    async resolveId(prefix) {
      // A prefix of the id, or of its random suffix (the part after the date: `…-s3skuk`);
      // case-insensitive, as in the SQLite store.
      const [idPrefix, suffixPrefix] = prefixPatterns(prefix);
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM runs WHERE id = $1 OR id ILIKE $2 ESCAPE '\\' OR id ILIKE $3 ESCAPE '\\'
         ORDER BY id = $1 DESC, id COLLATE "C" LIMIT 4`,
        [prefix, idPrefix, suffixPrefix],
      );
      return pickRunId(
        prefix,
        rows.map((r) => r.id),
      );
    },
  };
}
