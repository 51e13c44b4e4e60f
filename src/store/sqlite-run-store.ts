/**
 * RunStore on SQLite.
 */

import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../core/errors.ts";
import type { RunRecord } from "../core/run.ts";
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
import { DEFAULT_CLAIMABLE, type NewRun, type RunStore, type RunUpdate } from "./types.ts";

/** Creates the SQLite RunStore (each call runs synchronously; the promises are already settled). */
export function createSqliteRunStore(db: DatabaseSync): RunStore {
  // A running create takes up a queued run of the same id (see RunStore.create); any other
  // existing run makes the upsert change nothing.
  const insert = db.prepare(
    `INSERT INTO runs (id, query, strategy, options_json, status, created_at, updated_at, owner_json, heartbeat_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = 'running', query = excluded.query, strategy = excluded.strategy,
       options_json = excluded.options_json, updated_at = excluded.updated_at, owner_json = excluded.owner_json,
       heartbeat_at = excluded.heartbeat_at
     WHERE runs.status = 'queued' AND excluded.status = 'running'`,
  );
  const byId = db.prepare("SELECT * FROM runs WHERE id = ?");
  const versionHolder = db.prepare(
    `SELECT id FROM runs WHERE json_extract(options_json, '$.strategyOptions.reportRoot') = ?
       AND json_extract(options_json, '$.strategyOptions.version') = ?`,
  );

  const get = (id: string): RunRecord | undefined => {
    const row = byId.get(id) as RunRow | undefined;
    return row ? runFromRow(row) : undefined;
  };

  return {
    async create(run: NewRun) {
      const owner = run.owner && !run.queued ? run.owner : null;
      let changes: number | bigint;
      try {
        ({ changes } = insert.run(
          run.id,
          run.query,
          run.strategy,
          JSON.stringify(run.options),
          run.queued ? "queued" : "running",
          run.createdAt,
          run.createdAt,
          owner ? ownerText(owner) : null,
          owner ? run.createdAt : null,
        ));
      } catch (cause) {
        const version = reportVersionOf(run.options);
        if (version && /runs_by_report_version/.test((cause as Error).message)) {
          const holder = versionHolder.get(version.root, version.version as number) as
            | { id: string }
            | undefined;
          throw versionTakenError(run.id, run.options, holder?.id);
        }
        throw new DossierError("STORE_ERROR", `cannot create run ${run.id}: ${(cause as Error).message}`, {
          cause,
        });
      }
      if (Number(changes) !== 1) throw existsError(run.id, get(run.id)?.status);
      return get(run.id)!;
    },
    get: async (id) => get(id),
    async update(id: string, update: RunUpdate) {
      const sets: string[] = ["updated_at = ?"];
      const values: (string | null)[] = [update.updatedAt];
      const put = (column: string, value: string | null) => {
        sets.push(`${column} = ?`);
        values.push(value);
      };
      if (update.status !== undefined) put("status", update.status);
      if (update.finishedAt !== undefined) put("finished_at", update.finishedAt);
      if (update.stopReason !== undefined) put("stop_reason", update.stopReason);
      if (update.usage !== undefined)
        put("usage_json", update.usage === null ? null : JSON.stringify(update.usage));
      if (update.error !== undefined)
        put("error_json", update.error === null ? null : JSON.stringify(update.error));
      if (update.heartbeatAt !== undefined) put("heartbeat_at", update.heartbeatAt);
      const result = db.prepare(`UPDATE runs SET ${sets.join(", ")} WHERE id = ?`).run(...values, id);
      if (result.changes === 0)
        throw new DossierError("NOT_FOUND", `no run ${id}`, { details: { runId: id } });
      return get(id)!;
    },
    async claim(id, owner, now, options = {}) {
      const stale = options.staleBefore ?? null;
      const from = options.from ?? DEFAULT_CLAIMABLE;
      const result = db
        .prepare(
          `UPDATE runs SET status = 'running', owner_json = ?, heartbeat_at = ?, updated_at = ?, finished_at = NULL,
             stop_reason = NULL, error_json = NULL, cancel_reason = NULL, cancel_requested_at = NULL
           WHERE id = ? AND (status IN (SELECT value FROM json_each(?))
             OR (? IS NOT NULL AND status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < ?)))`,
        )
        .run(ownerText(owner), now, now, id, JSON.stringify(from), stale, stale);
      return result.changes === 1 ? get(id)! : null;
    },
    async heartbeat(id, owner, now) {
      const row = db
        .prepare(
          "UPDATE runs SET heartbeat_at = ?, updated_at = ? WHERE id = ? AND status = 'running' AND owner_json = ? RETURNING cancel_reason",
        )
        .get(now, now, id, ownerText(owner)) as { cancel_reason: string | null } | undefined;
      return { held: row !== undefined, cancelRequested: row?.cancel_reason ?? null };
    },
    async requestCancel(id, reason, now) {
      const result = db
        .prepare(
          `UPDATE runs SET cancel_reason = ?1, cancel_requested_at = ?2,
             status = CASE status WHEN 'queued' THEN 'cancelled' ELSE status END,
             finished_at = CASE status WHEN 'queued' THEN ?2 ELSE finished_at END,
             stop_reason = CASE status WHEN 'queued' THEN 'cancelled: ' || ?1 ELSE stop_reason END,
             updated_at = CASE status WHEN 'queued' THEN ?2 ELSE updated_at END
           WHERE id = ?3 AND status IN ('queued', 'running')`,
        )
        .run(reason, now, id);
      return result.changes === 1;
    },
    async list(options = {}) {
      const limit = options.limit ?? 50;
      const rows = options.status
        ? db
            .prepare("SELECT * FROM runs WHERE status = ? ORDER BY created_at DESC, id DESC LIMIT ?")
            .all(options.status, limit)
        : db.prepare("SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT ?").all(limit);
      return (rows as unknown as RunRow[]).map(runFromRow);
    },
    async resolveId(prefix: string) {
      // A prefix of the id, or of its random suffix (the part after the date: `…-s3skuk`).
      const [idPrefix, suffixPrefix] = prefixPatterns(prefix);
      const rows = db
        .prepare(
          "SELECT id FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' ORDER BY id = ? DESC, id LIMIT 4",
        )
        .all(prefix, idPrefix, suffixPrefix, prefix) as { id: string }[];
      return pickRunId(
        prefix,
        rows.map((r) => r.id),
      );
    },
  };
}
