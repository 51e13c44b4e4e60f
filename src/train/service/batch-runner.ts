/**
 * Runs one rollout batch: every rollout waits for a slot of the service (its concurrency,
 * shared by all batches), gets a run id and its policy record in the store, and runs as a
 * recorded research run with its own seed and group tag (run-rollout.ts). A rollout that ended
 * as a sample is read back from the store as a recorded run; once every rollout of a row has
 * ended, the group is scored (score-group.ts). Progress goes to the batch's event log.
 *
 * Cancelling the batch cancels its runs under way (they stay resumable) and its waiting
 * rollouts; refusing stale work (a newer policy version was requested) only withdraws the
 * waiting ones — the runs under way finish and are flagged off-policy in the results.
 */

import type PQueue from "p-queue";
import { toDossierError } from "../../core/errors.ts";
import type { Dossier } from "../../runtime/dossier.ts";
import { createRunId } from "../../runtime/run-id.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { recordedRunFromEvents } from "../run-from-events.ts";
import type { RewardJudges } from "../score/score-runs.ts";
import { type BatchState, ENDED, type RolloutState, SAMPLES, statusCounts } from "./batch-state.ts";
import type { RolloutExecutor } from "./rollout-executor.ts";
import { rolloutResearchOptions } from "./rollout-options.ts";
import { runRollout } from "./run-rollout.ts";
import { scoreGroup } from "./score-group.ts";

/** What a batch runs with. */
export interface BatchRunnerContext {
  /** The policy's Dossier. */
  dossier: Dossier;
  executor: RolloutExecutor;
  /** The service's slots: one per rollout under way. */
  slots: PQueue;
  judges: RewardJudges;
  /** Keeps the policy record of a run before it starts. */
  beforeStart(runId: string): Promise<void>;
  infraRetries?: number;
  retryDelayMs?: number;
  now(): number;
}

/** A batch under way. */
export interface BatchRun {
  /** Settles once the batch has ended (`batch-end` appended). */
  done: Promise<void>;
  /** Cancels the runs under way and the waiting rollouts. */
  cancel(reason: string): void;
  /** Withdraws the rollouts still waiting (they end `stale`). */
  refuseStale(): void;
}

/** Starts running `batch` (see the module comment). */
export function startBatch(batch: BatchState, ctx: BatchRunnerContext): BatchRun {
  const cancelled = new AbortController();
  let endedCount = 0;
  let allDone!: () => void;
  const allEnded = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  if (batch.rollouts.length === 0) allDone();
  const runs = new Map<string, RecordedRun>();
  const scoring: Promise<void>[] = [];
  const at = () => new Date(ctx.now()).toISOString();
  const { request } = batch;

  const end = (r: RolloutState, status: RolloutState["status"], error: RolloutState["error"]) => {
    r.status = status;
    r.error = error;
    r.endedAt = at();
    endedCount++;
    batch.events.append({
      type: "rollout-ended",
      key: r.key,
      questionId: r.row.id,
      index: r.index,
      runId: r.runId,
      status,
      error,
    });
    const group = batch.groups.get(r.row.id)!;
    const members = group.keys.map((k) => batch.rollouts.find((x) => x.key === k)!);
    if (members.every((m) => ENDED.has(m.status))) scoring.push(score(group.id, members));
    if (endedCount === batch.rollouts.length) allDone();
  };

  const score = async (groupId: string, members: RolloutState[]) => {
    const group = batch.groups.get(groupId)!;
    const samples = members.filter((m) => SAMPLES.has(m.status) && runs.has(m.key));
    if (samples.length === 0 || cancelled.signal.aborted) {
      group.status = "unscored";
      batch.events.append({ type: "group-scored", groupId, rollouts: [], dropped: false, error: null });
      return;
    }
    const scored = await scoreGroup(
      samples.map((m) => runs.get(m.key)!),
      request.reward,
      ctx.judges,
    );
    for (const m of samples) runs.delete(m.key);
    if (!scored.ok) {
      group.status = "unscored";
      group.error = scored.error;
    } else {
      group.status = "scored";
      group.dropped = scored.dropped;
      for (const s of scored.samples) {
        const m = samples.find((x) => x.runId === s.runId)!;
        m.reward = s.reward;
        m.components = s.components;
        m.details = s.details;
        m.advantage = s.advantage;
      }
    }
    batch.events.append({
      type: "group-scored",
      groupId,
      rollouts: scored.ok
        ? samples.map((m) => ({ key: m.key, runId: m.runId!, reward: m.reward!, advantage: m.advantage }))
        : [],
      dropped: scored.ok && scored.dropped,
      error: scored.ok ? null : scored.error,
    });
  };

  const runOne = async (r: RolloutState) => {
    r.runId = createRunId(ctx.now());
    const runId = r.runId;
    const started = () => {
      r.startedAt = at();
      batch.events.append({
        type: "rollout-started",
        key: r.key,
        questionId: r.row.id,
        index: r.index,
        runId,
      });
    };
    try {
      await ctx.beforeStart(runId);
    } catch (error) {
      const e = toDossierError(error);
      return end(r, "error", { code: e.code, message: e.message });
    }
    const outcome = await runRollout({
      executor: ctx.executor,
      dossier: ctx.dossier,
      question: r.row.prompt,
      options: { ...rolloutResearchOptions(request, r), runId },
      signal: cancelled.signal,
      ...(ctx.infraRetries !== undefined ? { infraRetries: ctx.infraRetries } : {}),
      ...(ctx.retryDelayMs !== undefined ? { retryDelayMs: ctx.retryDelayMs } : {}),
      onStarted: started,
    });
    // Every rollout that ran has its start before its end, even one whose run-start was not seen.
    if (r.startedAt === null && outcome.result) started();
    r.stopReason = outcome.result?.stopReason ?? null;
    if (outcome.status === "completed" || outcome.status === "failed") {
      try {
        const events = await ctx.dossier.runs.events(runId);
        const run = recordedRunFromEvents({
          row: r.row,
          events,
          report: outcome.result?.markdown ?? null,
          group: { id: r.row.id, index: r.index },
        });
        runs.set(r.key, run);
        r.answer = run.answer;
        r.calls = run.calls.length;
      } catch (error) {
        const e = toDossierError(error);
        return end(r, "error", { code: e.code, message: `the run could not be read back: ${e.message}` });
      }
    }
    end(r, outcome.status, outcome.error);
  };

  // A rollout ends once; the batch ends when all have (waiting ones withdrawn end at once, not
  // when their turn for a slot comes: that turn then finds them ended and does nothing).
  batch.rollouts.forEach((r) => {
    ctx.slots
      .add(() => {
        if (r.status !== "pending") return;
        r.status = "running";
        return runOne(r);
      })
      .catch((error: unknown) => {
        const e = toDossierError(error);
        if (!ENDED.has(r.status)) end(r, "error", { code: e.code, message: e.message });
      });
  });
  const withdraw = (status: "stale" | "cancelled") => {
    for (const r of batch.rollouts) if (r.status === "pending") end(r, status, null);
  };

  const done = (async () => {
    await allEnded;
    // Scorings are pushed as groups complete; the last rollout's end pushes the last one.
    await Promise.all(scoring);
    batch.status = cancelled.signal.aborted ? "cancelled" : "completed";
    batch.endedAt = at();
    batch.events.append({ type: "batch-end", status: batch.status, counts: statusCounts(batch) });
  })();

  return {
    done,
    cancel(reason) {
      if (cancelled.signal.aborted) return;
      cancelled.abort(reason);
      withdraw("cancelled");
    },
    refuseStale() {
      if (!cancelled.signal.aborted) withdraw("stale");
    },
  };
}
