/**
 * A run as both SQL backends store it (JSON as text, times as ISO text), read back through the
 * record's schema; and the rule that turns the ids matching a prefix into one run id.
 */

import { DossierError } from "../core/errors.ts";
import { type RunRecord, runRecordSchema } from "../core/run.ts";

/** A row of the `runs` table. */
export interface RunRow {
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

/** The record of a row. */
export function runFromRow(row: RunRow): RunRecord {
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

/**
 * The LIKE patterns of a run id prefix (`\` escapes): a prefix of the id, and a prefix of its
 * random suffix (the part after the date: `…-s3skuk`). Wildcards in the prefix match literally.
 */
export function prefixPatterns(prefix: string): [string, string] {
  const escaped = prefix.replace(/[\\%_]/g, "\\$&");
  return [`${escaped}%`, `%-${escaped}%`];
}

/**
 * The run id `prefix` names among `matches` (the exact id first, at most four ids): the exact
 * id, else the only match; NOT_FOUND without one, INPUT_INVALID listing up to three when several.
 */
export function pickRunId(prefix: string, matches: readonly string[]): string {
  if (matches.includes(prefix)) return prefix;
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new DossierError("NOT_FOUND", `no run matches "${prefix}"`, { details: { prefix } });
  const shown = matches.slice(0, 3);
  throw new DossierError(
    "INPUT_INVALID",
    `"${prefix}" matches several runs (${shown.join(", ")}${matches.length > 3 ? ", …" : ""}); give more of the id`,
    { details: { prefix, matches: shown } },
  );
}

/** The STORE_ERROR of a create whose id exists (in `status`, when known) and cannot be taken up. */
export function existsError(id: string, status: string | undefined): DossierError {
  return new DossierError(
    "STORE_ERROR",
    `cannot create run ${id}: a run with this id exists${status ? ` (${status})` : ""}`,
    { details: { runId: id, ...(status ? { status } : {}) } },
  );
}

/** The report and version a run's options name (`strategyOptions.reportRoot`, `.version`), if any. */
export function reportVersionOf(
  options: Record<string, unknown>,
): { root: string; version: unknown } | undefined {
  const so = options.strategyOptions as { reportRoot?: unknown; version?: unknown } | undefined;
  return typeof so?.reportRoot === "string" ? { root: so.reportRoot, version: so.version } : undefined;
}

/** The CONFLICT of a create whose version of a report another run holds (`holder`, when known). */
export function versionTakenError(
  id: string,
  options: Record<string, unknown>,
  holder: string | undefined,
): DossierError {
  const of = reportVersionOf(options);
  return new DossierError(
    "CONFLICT",
    `cannot create run ${id}: version ${String(of?.version)} of the report of run ${of?.root} is held by ${holder ? `run ${holder}` : "another run"}`,
    { details: { runId: id, reportRoot: of?.root, version: of?.version, ...(holder ? { holder } : {}) } },
  );
}
