/**
 * The versions of a report: the research run that wrote version 1 and the refresh runs after it
 * (each names the run it refreshes), read from the stored run records. For `dossier runs show`.
 */

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
