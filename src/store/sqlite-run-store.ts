/**
 * RunStore on SQLite.
 */

import type { DatabaseSync } from "node:sqlite";
import { DossierError } from "../core/errors.ts";
import { type RunRecord, runRecordSchema } from "../core/run.ts";
import type { NewRun, RunStore, RunUpdate } from "./types.ts";

interface RunRow {
  id: string;
  query: string;
  strategy: string;
  options_json: string;
  status: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  stop_reason: string | null;
  usage_json: string | null;
  error_json: string | null;
  owner_json: string | null;
  heartbeat_at: string | null;
}

function fromRow(row: RunRow): RunRecord {
  return runRecordSchema.parse({
    id: row.id,
    query: row.query,
    strategy: row.strategy,
    options: JSON.parse(row.options_json),
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    stopReason: row.stop_reason,
    usage: row.usage_json ? JSON.parse(row.usage_json) : null,
    error: row.error_json ? JSON.parse(row.error_json) : null,
    owner: row.owner_json ? JSON.parse(row.owner_json) : null,
    heartbeatAt: row.heartbeat_at,
  });
}

/** Creates the SQLite RunStore. */
export function createSqliteRunStore(db: DatabaseSync): RunStore {
  const insert = db.prepare(
    "INSERT INTO runs (id, query, strategy, options_json, status, created_at, updated_at, owner_json, heartbeat_at) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)",
  );
  const byId = db.prepare("SELECT * FROM runs WHERE id = ?");

  const get = (id: string): RunRecord | undefined => {
    const row = byId.get(id) as RunRow | undefined;
    return row ? fromRow(row) : undefined;
  };

  return {
    create(run: NewRun) {
      try {
        insert.run(
          run.id,
          run.query,
          run.strategy,
          JSON.stringify(run.options),
          run.createdAt,
          run.createdAt,
          run.owner ? JSON.stringify(run.owner) : null,
          run.owner ? run.createdAt : null,
        );
      } catch (cause) {
        throw new DossierError("STORE_ERROR", `cannot create run ${run.id}: ${(cause as Error).message}`, {
          cause,
        });
      }
      return get(run.id)!;
    },
    get,
    update(id: string, update: RunUpdate) {
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
    claim(id, owner, now) {
      const result = db
        .prepare(
          "UPDATE runs SET status = 'running', owner_json = ?, heartbeat_at = ?, updated_at = ?, finished_at = NULL, stop_reason = NULL, error_json = NULL WHERE id = ? AND status IN ('interrupted', 'cancelled', 'failed')",
        )
        .run(JSON.stringify(owner), now, now, id);
      return result.changes === 1 ? get(id)! : null;
    },
    list(options = {}) {
      const limit = options.limit ?? 50;
      const rows = options.status
        ? db
            .prepare("SELECT * FROM runs WHERE status = ? ORDER BY created_at DESC, id DESC LIMIT ?")
            .all(options.status, limit)
        : db.prepare("SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT ?").all(limit);
      return (rows as unknown as RunRow[]).map(fromRow);
    },
    resolveId(prefix: string) {
      // A prefix of the id, or of its random suffix (the part after the date: `…-s3skuk`).
      const escaped = prefix.replace(/[\\%_]/g, "\\$&");
      const rows = db
        .prepare(
          "SELECT id FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' ORDER BY id = ? DESC, id LIMIT 4",
        )
        .all(prefix, `${escaped}%`, `%-${escaped}%`, prefix) as { id: string }[];
      const exact = rows.find((r) => r.id === prefix);
      if (exact) return exact.id;
      if (rows.length === 1) return rows[0]!.id;
      if (rows.length === 0)
        throw new DossierError("NOT_FOUND", `no run matches "${prefix}"`, { details: { prefix } });
      const matches = rows.slice(0, 3).map((r) => r.id);
      throw new DossierError(
        "INPUT_INVALID",
        `"${prefix}" matches several runs (${matches.join(", ")}${rows.length > 3 ? ", …" : ""}); give more of the id`,
        { details: { prefix, matches } },
      );
    },
  };
}
