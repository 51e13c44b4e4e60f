/**
 * The versions of a report: the research run that wrote version 1 and the refresh runs after it
 * (each names the run it refreshes), read from the stored run records. For `dossier runs show`,
 * and for the number a new refresh writes (`nextVersion`).
 */

import { DossierError } from "../core/errors.ts";
import type { RunRecord } from "../core/run.ts";
import { refreshOf, versionOf } from "./refresh-parent.ts";

/** Recent runs looked through for refreshes. */
const SCAN = 1000;

/** One version of a report. */
export interface ReportVersion {
  version: number;
  runId: string;
  status: RunRecord["status"];
  createdAt: string;
  /** The run it refreshes (absent for version 1). */
  refreshOf?: string;
}

/**
 * Every version of the report `run` belongs to, oldest first: back along `refreshOf` to the
 * original run, then every refresh of any of them. Empty when the run was never refreshed and
 * is no refresh.
 */
export async function versionsOf(
  runs: {
    list(options?: { limit?: number }): Promise<RunRecord[]>;
    get(id: string): Promise<RunRecord>;
  },
  run: RunRecord,
): Promise<ReportVersion[]> {
  const recent = await runs.list({ limit: SCAN });
  const byId = new Map(recent.map((r) => [r.id, r]));
  byId.set(run.id, run);
  let root = run;
  for (let of = refreshOf(root); of; of = refreshOf(root)) {
    const up = byId.get(of) ?? (await runs.get(of).catch(() => undefined));
    if (!up) break;
    byId.set(up.id, up);
    root = up;
  }
  const chain = new Set([root.id]);
  const refreshes = [...byId.values()].filter((r) => refreshOf(r) !== undefined);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of refreshes) {
      if (!chain.has(r.id) && chain.has(refreshOf(r)!)) {
        chain.add(r.id);
        grew = true;
      }
    }
  }
  if (chain.size === 1) return [];
  return [...chain]
    .map((id) => byId.get(id)!)
    .map((r) => {
      const of = refreshOf(r);
      return {
        version: versionOf(r),
        runId: r.id,
        status: r.status,
        createdAt: r.createdAt,
        ...(of ? { refreshOf: of } : {}),
      };
    })
    .sort((a, b) => a.version - b.version || a.createdAt.localeCompare(b.createdAt));
}

/** The version a refresh writes, and the report it belongs to. */
export interface NextVersion {
  version: number;
  /** The id of the run that wrote version 1 (stored with the refresh as `reportRoot`). */
  reportRoot: string;
}

/**
 * The version a refresh of `run` writes: one more than the highest version of its report any
 * run holds (a failed or cancelled refresh keeps its number). CONFLICT, before any model call,
 * when a refresh of the report is queued or running, or when `run` is not the report's latest
 * completed version (the message names the latest). Two refreshes that pass this check at once
 * still cannot write one version: the store holds each version of a report by one run
 * (`RunStore.create`), and the second create is CONFLICT.
 */
export async function nextVersion(
  runs: Parameters<typeof versionsOf>[0],
  run: RunRecord,
): Promise<NextVersion> {
  const versions = await versionsOf(runs, run);
  const reportRoot = versions.find((v) => v.refreshOf === undefined)?.runId ?? run.id;
  const busy = versions.find((v) => v.status === "queued" || v.status === "running");
  if (busy) {
    throw new DossierError(
      "CONFLICT",
      `run ${busy.runId} is already writing version ${busy.version} of this report (${busy.status}): wait for it to finish, or cancel it (dossier runs cancel ${busy.runId})`,
      { details: { runId: run.id, refresh: busy.runId, version: busy.version, status: busy.status } },
    );
  }
  const mine = versionOf(run);
  const latest = versions.filter((v) => v.status === "completed").at(-1);
  if (latest && latest.version > mine) {
    throw new DossierError(
      "CONFLICT",
      `run ${run.id} is version ${mine} of its report; the latest is version ${latest.version} (run ${latest.runId}): refresh that one`,
      { details: { runId: run.id, version: mine, latest: latest.version, latestRunId: latest.runId } },
    );
  }
  const highest = Math.max(mine, ...versions.map((v) => v.version));
  return { version: highest + 1, reportRoot };
}
