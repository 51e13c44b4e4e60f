/**
 * Resuming a research run that crashed, was killed or was cancelled: the same run id, the same
 * request (rebuilt from the stored run options), the strategy run again from the start while
 * every model and tool result the journal holds is replayed instead of requested, the event
 * log continuing its sequence, and the wall time already spent counting against the budget.
 * A lease in the store (`RunStore.claim`) makes sure a run is never resumed twice at once.
 */

import { systemClock } from "../core/clock.ts";
import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { RunRecord } from "../core/run.ts";
import { earlierEvidence } from "./earlier-evidence.ts";
import { earlierCalls } from "./earlier-usage.ts";
import { checkReportTargets } from "./report-files.ts";
import { type PreparedResearch, prepareResearch, type ResearchEnvironment } from "./research.ts";
import { type ResearchRequest, researchRequestSchema } from "./research-request.ts";
import type { StartRunOptions } from "./run.ts";
import { currentOwner, markInterruptedRuns } from "./run-liveness.ts";

/** Statuses a run can be resumed from. */
export const RESUMABLE = ["interrupted", "cancelled", "failed"] as const;

/** The research request a stored run was started with. */
export function requestOfRun(record: RunRecord): ResearchRequest {
  const o = record.options as Record<string, unknown>;
  const pick = <K extends string>(key: K) => (o[key] === undefined ? {} : { [key]: o[key] });
  const request = {
    query: record.query,
    strategy: record.strategy,
    ...pick("sources"),
    ...pick("corpus"),
    ...pick("webhooks"),
    ...pick("language"),
    ...pick("formats"),
    ...pick("budget"),
    ...pick("currentDate"),
    ...pick("concurrency"),
    ...pick("strategyOptions"),
    ...pick("batch"),
    ...pick("recordCalls"),
    ...pick("recordTokens"),
    ...pick("seed"),
    ...pick("rollout"),
    ...pick("verify"),
    ...pick("sourceFilter"),
    ...pick("reviewPlan"),
    ...pick("reviewTimeoutMinutes"),
  };
  const parsed = researchRequestSchema.safeParse(request);
  if (!parsed.success) {
    throw new DossierError(
      "INPUT_INVALID",
      `run ${record.id} cannot be resumed: its stored options are not a research request`,
      {
        details: { runId: record.id, issues: parsed.error.issues.slice(0, 3) },
      },
    );
  }
  return request as ResearchRequest;
}

/**
 * The wall time the earlier attempts of a run spent, from its event log: each attempt from its
 * run-start or run-resume to its run-end (or last event); gaps between attempts — a review's wait
 * and its answer among them — excluded.
 */
export function previousWallMs(events: readonly DossierEvent[]): number {
  let total = 0;
  let segmentStart: number | null = null;
  let last: number | null = null;
  for (const event of events) {
    const ts = Date.parse(event.ts);
    if (event.type === "run-start" || event.type === "run-resume") {
      if (segmentStart !== null && last !== null) total += last - segmentStart;
      segmentStart = ts;
    }
    if (segmentStart === null) continue;
    last = ts;
    if (event.type === "run-end") {
      total += last - segmentStart;
      segmentStart = null;
      last = null;
    }
  }
  if (segmentStart !== null && last !== null) total += last - segmentStart;
  return Math.max(0, total);
}

/** Checks that `runId` may be resumed now; marks a run whose process is gone as interrupted first. */
export async function checkResumable(
  runId: string,
  env: Pick<ResearchEnvironment, "store" | "clock">,
): Promise<RunRecord> {
  await markInterruptedRuns(env.store, env.clock ?? systemClock);
  const record = await env.store.runs.get(runId);
  if (!record) throw new DossierError("NOT_FOUND", `no run ${runId}`);
  if (record.status === "completed") {
    throw new DossierError("CONFLICT", `run ${runId} is already completed; start a new run instead`, {
      details: { runId, status: record.status },
    });
  }
  if (record.status === "queued") {
    throw new DossierError(
      "CONFLICT",
      `run ${runId} is queued: a worker will start it; cancel it first to resume it later`,
      { details: { runId, status: record.status } },
    );
  }
  if (record.status === "awaiting-review") {
    throw new DossierError(
      "CONFLICT",
      `run ${runId} is awaiting review of its plan: answer it (dossier runs review ${runId} --approve, --plan <file> or --reject; POST /v1/runs/${runId}/plan), and the run goes on`,
      { details: { runId, status: record.status } },
    );
  }
  if (record.status === "running") {
    const owner = record.owner ? ` by process ${record.owner.pid} on ${record.owner.host}` : "";
    throw new DossierError("CONFLICT", `run ${runId} is still running${owner}; cancel it first or wait`, {
      details: { runId, status: record.status, owner: record.owner },
    });
  }
  return record;
}

/** A stored run prepared to run again, and what its resume records. */
export interface PreparedResume {
  prepared: PreparedResearch;
  resume: NonNullable<StartRunOptions<never>["resume"]>;
}

/**
 * Prepares the resume of `runId`: rebuilds and checks its request (nothing is indexed again;
 * the run's corpus is reopened), then takes the lease. Throws NOT_FOUND, CONFLICT or the
 * request's own check errors; nothing is claimed when it throws.
 */
export async function prepareResume(runId: string, env: ResearchEnvironment): Promise<PreparedResume> {
  const record = await checkResumable(runId, env);
  const prepared = await prepareResearch(requestOfRun(record), { ...env, runId });
  const stored = (record.options as { reportPaths?: unknown }).reportPaths;
  if (
    Array.isArray(stored) &&
    stored.length === prepared.paths.length &&
    stored.every((p) => typeof p === "string")
  ) {
    checkReportTargets(stored);
    prepared.paths = stored;
  }
  const now = new Date((env.clock ?? systemClock).now()).toISOString();
  const claimed = await env.store.runs.claim(runId, currentOwner(), now);
  if (!claimed) {
    prepared.corpus?.index.close();
    throw new DossierError("CONFLICT", `run ${runId} was taken up by another process just now`, {
      details: { runId },
    });
  }
  const events = await env.store.events.list(runId);
  const journal = await env.store.journal(runId).entries();
  const journaledCalls = new Set([...journal].flatMap(([key, entry]) => (entry.kind === "llm" ? [key] : [])));
  const journaledSteps = events.filter(
    (e) => (e.type === "llm-end" || e.type === "tool-end") && (e as { ok?: boolean }).ok === true,
  ).length;
  return {
    prepared,
    resume: {
      previousStatus: record.status,
      previousWallMs: previousWallMs(events),
      journaledSteps,
      earlierEvidence: earlierEvidence(events),
      // What the earlier attempts paid for counts in the run's usage and budget (lost calls too).
      earlierCalls: earlierCalls(events, journaledCalls),
    },
  };
}
