/**
 * The versions of a report, as the UI finds them among the listed runs: the run that wrote
 * version 1 and the refresh runs after it (a refresh run's options name the run it refreshes
 * and its version), oldest first.
 */

import type { RunView } from "./api.ts";

/** The strategy of refresh runs. */
export const REFRESH_STRATEGY = "refresh";

type RunLike = Pick<RunView, "id" | "strategy" | "status" | "createdAt"> & { options?: unknown };

const refreshOptions = (run: RunLike) =>
  run.strategy === REFRESH_STRATEGY
    ? ((run.options as { strategyOptions?: { refreshOf?: unknown; version?: unknown } } | undefined)
        ?.strategyOptions ?? {})
    : {};

/** The run a refresh run refreshes, or null for any other run. */
export function refreshOf(run: RunLike): string | null {
  const of = refreshOptions(run).refreshOf;
  return typeof of === "string" ? of : null;
}

/** The report version a run wrote (1 unless it is a refresh). */
export function versionOf(run: RunLike): number {
  const version = refreshOptions(run).version;
  return typeof version === "number" ? version : 1;
}

/** One version of a report. */
export interface VersionView {
  version: number;
  runId: string;
  status: string;
  createdAt: string;
  refreshOf: string | null;
}

/**
 * Every version of the report `runId` belongs to among `runs`: back along `refreshOf` to the
 * first run, then every refresh of any of them; oldest first. Empty when the run was never
 * refreshed and is no refresh.
 */
export function versionsOf(runs: readonly RunLike[], runId: string): VersionView[] {
  const byId = new Map(runs.map((r) => [r.id, r]));
  let root = byId.get(runId);
  if (!root) return [];
  const seen = new Set([root.id]);
  for (let of = refreshOf(root); of && !seen.has(of); of = refreshOf(root)) {
    const up = byId.get(of);
    if (!up) break;
    seen.add(up.id);
    root = up;
  }
  const chain = new Set([root.id]);
  const refreshes = runs.filter((r) => refreshOf(r) !== null);
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
    .map((r) => ({
      version: versionOf(r),
      runId: r.id,
      status: r.status,
      createdAt: r.createdAt,
      refreshOf: refreshOf(r),
    }))
    .sort((a, b) => a.version - b.version || a.createdAt.localeCompare(b.createdAt));
}

/**
 * The report's latest completed version when it is newer than `runId`'s, else undefined: only
 * the latest completed version can be refreshed (the server refuses an older one with CONFLICT).
 */
export function newerVersion(versions: readonly VersionView[], runId: string): VersionView | undefined {
  const mine = versions.find((v) => v.runId === runId);
  const latest = versions.filter((v) => v.status === "completed").at(-1);
  return mine && latest && latest.version > mine.version ? latest : undefined;
}
