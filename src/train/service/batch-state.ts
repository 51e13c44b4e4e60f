/**
 * What the service keeps of a rollout batch: the request (without a literal key), one entry per
 * rollout (its run, how it ended, its reward and advantage once its group is scored) and one per
 * group. A rollout's statuses:
 *
 * | status | meaning |
 * |---|---|
 * | `pending` | waiting for a slot (the service's concurrency) |
 * | `running` | its run is under way (here or on a worker) |
 * | `completed` | its run completed: a sample |
 * | `failed` | its run failed by the agent's behaviour (no evidence, malformed output to the end, a budget spent): a sample, scored like any other |
 * | `error` | its run failed outside the agent (the policy endpoint unreachable, the store) after the retries: not a sample |
 * | `stale` | never started: a newer policy version was requested and the batch refuses stale work |
 * | `cancelled` | the batch was cancelled (or the service stopped) before it ended; its run, if any, can be resumed |
 */

import { z } from "zod";
import type { QuestionRow } from "../question-row.ts";
import type { BatchEventLog } from "./batch-events.ts";
import type { PolicyVersion } from "./policy-versions.ts";
import type { RolloutRequest } from "./request.ts";

/** How a rollout stands. */
export const rolloutStatusSchema = z.enum([
  "pending",
  "running",
  "completed",
  "failed",
  "error",
  "stale",
  "cancelled",
]);
/** How a rollout stands. */
export type RolloutStatus = z.infer<typeof rolloutStatusSchema>;

/** Statuses of a rollout that has ended. */
export const ENDED: ReadonlySet<RolloutStatus> = new Set([
  "completed",
  "failed",
  "error",
  "stale",
  "cancelled",
]);
/** Statuses of a rollout that is a sample (scored). */
export const SAMPLES: ReadonlySet<RolloutStatus> = new Set(["completed", "failed"]);

/** One rollout of a batch. */
export interface RolloutState {
  /** `<row id>#<index>`. */
  key: string;
  row: QuestionRow;
  index: number;
  seed: number;
  runId: string | null;
  status: RolloutStatus;
  stopReason: string | null;
  error: { code: string; message: string } | null;
  /** The short answer, and the number of model calls recorded. */
  answer: string | null;
  calls: number;
  /** Filled when its group is scored. */
  reward: number | null;
  components: Record<string, unknown> | null;
  details: Record<string, unknown> | null;
  advantage: number | null;
  startedAt: string | null;
  endedAt: string | null;
}

/** One group (a row's G rollouts). */
export interface GroupState {
  id: string;
  keys: string[];
  status: "open" | "scored" | "unscored";
  /** DAPO dropped it (all rewards equal). */
  dropped: boolean;
  /** Why it could not be scored (a judge failed), or null. */
  error: { code: string; message: string } | null;
}

/** A batch as the service keeps it. */
export interface BatchState {
  id: string;
  /** The request, its literal key (if any) removed. */
  request: Omit<RolloutRequest, "policy"> & { policy: Omit<RolloutRequest["policy"], "apiKey"> };
  policyVersion: PolicyVersion;
  /** True when the request or the service refuses stale work. */
  rejectStale: boolean;
  status: "running" | "completed" | "cancelled";
  rollouts: RolloutState[];
  groups: Map<string, GroupState>;
  events: BatchEventLog;
  createdAt: string;
  endedAt: string | null;
}

/** The number of rollouts in each status. */
export function statusCounts(batch: Pick<BatchState, "rollouts">): Record<RolloutStatus, number> {
  const counts = Object.fromEntries(rolloutStatusSchema.options.map((s) => [s, 0])) as Record<
    RolloutStatus,
    number
  >;
  for (const r of batch.rollouts) counts[r.status]++;
  return counts;
}
