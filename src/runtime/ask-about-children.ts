/**
 * The follow-ups of a run and the parent of a follow-up, read from the stored run records (a
 * follow-up's options name its parent: `strategyOptions.about`). For `dossier runs show`.
 */

import type { RunRecord } from "../core/run.ts";
import { FOLLOW_UP_STRATEGY } from "./ask-about-definition.ts";

/** Recent runs looked through for follow-ups. */
const SCAN = 1000;

/** The run a follow-up is about, or undefined for any other run. */
export function parentOf(run: Pick<RunRecord, "strategy" | "options">): string | undefined {
  if (run.strategy !== FOLLOW_UP_STRATEGY) return undefined;
  const about = (run.options.strategyOptions as { about?: unknown } | undefined)?.about;
  return typeof about === "string" ? about : undefined;
}

/** The follow-ups of `runId` among the most recent runs, oldest first. */
export async function followUpsOf(
  runs: { list(options?: { limit?: number }): Promise<RunRecord[]> },
  runId: string,
): Promise<RunRecord[]> {
  const recent = await runs.list({ limit: SCAN });
  return recent.filter((r) => parentOf(r) === runId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
