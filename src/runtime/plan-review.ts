/**
 * Plan review, outside the run: what a run's review stands at (read from its event log), its
 * answer and its timeout. A run with `reviewPlan` stops after its plan (`awaiting-review`, held by
 * no process; core/plan-review-point.ts); whoever answers claims it from that status alone —
 * atomically, so of two answers (or an answer and the timeout) exactly one wins — and:
 *
 * - approves or edits: the plan to execute goes into the run's journal (`state:plan-review`) and
 *   a `plan-reviewed` event says what was approved and what the edit changed; the run is then
 *   `interrupted` (stop reason `plan approved: resuming`) and is resumed at once — in this process,
 *   or by a worker of the run queue — replaying its planning from the journal;
 * - rejects: `plan-reviewed` and `run-end`, the run `cancelled` with stop reason `plan-rejected`;
 * - lets the deadline pass: the first reader after it (a listing, a read of the run or its plan,
 *   an answer, the server's and the workers' sweeps) ends it `failed` with REVIEW_TIMEOUT. A
 *   review is never approved by default.
 */

import type { Clock } from "../core/clock.ts";
import { DossierError } from "../core/errors.ts";
import type { EventInput, EventOf } from "../core/events.ts";
import { applyPlanEdit, type PlanAnswer, parsePlanEdit } from "../core/plan-edit.ts";
import { PLAN_REVIEW_STATE, type ReviewedPlan } from "../core/plan-review-point.ts";
import { NO_CHANGES, type PlanChanges, type ReviewPlan } from "../core/review-plan.ts";
import type { RunRecord, RunStatus } from "../core/run.ts";
import type { Store } from "../store/types.ts";
import { currentOwner } from "./run-liveness.ts";

/** Where a run's plan review stands. */
export type ReviewStage = "pending" | "approved" | "edited" | "rejected" | "timed-out";

/** A run's plan review. */
export interface PlanReviewView {
  runId: string;
  status: RunStatus;
  stage: ReviewStage;
  /** The plan awaiting review (also when rejected or timed out), or the plan approved to run. */
  plan: ReviewPlan;
  /** The plan as the strategy proposed it. */
  proposed: ReviewPlan;
  /** What an edit changed (null until answered, and for a rejection or a timeout). */
  changes: PlanChanges | null;
  /** When the plan was recorded for review, and when the review times out (ISO). */
  requestedAt: string;
  deadline: string;
  answeredAt: string | null;
  /** A rejection's reason, or the timeout's. */
  reason: string | null;
}

/** The stop reason of a run whose review was answered and that waits to be taken up again. */
export const APPROVED_STOP_REASON = "plan approved: resuming";

/** What reading and answering a review needs. */
export interface ReviewEnv {
  store: Store;
  clock: Pick<Clock, "now">;
}

const iso = (clock: Pick<Clock, "now">) => new Date(clock.now()).toISOString();

/** The latest plan review of a run, or null when it never stopped for one. */
export async function readPlanReview(store: Store, runId: string): Promise<PlanReviewView | null> {
  const record = await store.runs.get(runId);
  if (!record) throw new DossierError("NOT_FOUND", `no run ${runId}`, { details: { runId } });
  return reviewOf(record, await store.events.list(runId, { types: ["plan-review", "plan-reviewed"] }));
}

function reviewOf(
  record: RunRecord,
  events: readonly (EventOf<"plan-review"> | EventOf<"plan-reviewed"> | { type: string })[],
): PlanReviewView | null {
  const at = events.findLastIndex((e) => e.type === "plan-review");
  if (at < 0) return null;
  const asked = events[at] as EventOf<"plan-review">;
  const answer = events.slice(at + 1).find((e) => e.type === "plan-reviewed") as
    | EventOf<"plan-reviewed">
    | undefined;
  const stage: ReviewStage = !answer
    ? "pending"
    : answer.action === "approve"
      ? "approved"
      : answer.action === "edit"
        ? "edited"
        : answer.action === "reject"
          ? "rejected"
          : "timed-out";
  return {
    runId: record.id,
    status: record.status,
    stage,
    plan: answer?.plan ?? asked.plan,
    proposed: asked.plan,
    changes: answer?.changes ?? null,
    requestedAt: asked.ts,
    deadline: asked.deadline,
    answeredAt: answer?.ts ?? null,
    reason: answer?.reason ?? null,
  };
}

/** The review of a run that is awaiting it; CONFLICT when it is not (or timed out now: it is ended first). */
async function pendingReview(env: ReviewEnv, runId: string): Promise<PlanReviewView> {
  const view = await readPlanReview(env.store, runId);
  if (view?.status !== "awaiting-review" || view.stage !== "pending") {
    const status = view?.status ?? (await env.store.runs.get(runId))?.status;
    throw new DossierError(
      "CONFLICT",
      `run ${runId} is not awaiting review of its plan (it is ${status}${view && view.stage !== "pending" ? `, its plan ${view.stage}` : ""})`,
      { details: { runId, status, ...(view ? { stage: view.stage } : {}) } },
    );
  }
  if (env.clock.now() >= Date.parse(view.deadline)) {
    await expireReview(env, view);
    throw new DossierError(
      "CONFLICT",
      `the review of run ${runId} timed out at ${view.deadline}: the run failed with REVIEW_TIMEOUT and researched nothing after its plan; resume it to be asked again`,
      { details: { runId, deadline: view.deadline, status: "failed" } },
    );
  }
  return view;
}

/** Claims a run from `awaiting-review` for this process; CONFLICT when another answer (or the timeout) won. */
async function claimReview(env: ReviewEnv, runId: string): Promise<void> {
  const claimed = await env.store.runs.claim(runId, currentOwner(), iso(env.clock), {
    from: ["awaiting-review"],
  });
  if (!claimed) {
    throw new DossierError(
      "CONFLICT",
      `the review of run ${runId} was answered by another process just now`,
      {
        details: { runId },
      },
    );
  }
}

/**
 * Ends a claimed run whose review was rejected or timed out: `plan-reviewed`, `run-end` and the
 * record, like the end of any run (the events first, then the status).
 */
async function endReviewedRun(
  env: ReviewEnv,
  view: PlanReviewView,
  answer: EventOf<"plan-reviewed">["action"],
  end: {
    status: "cancelled" | "failed";
    stopReason: string;
    reason: string;
    error?: { code: string; message: string };
  },
): Promise<RunRecord> {
  const { store } = env;
  const now = iso(env.clock);
  const record = await store.runs.get(view.runId);
  const reviewed: EventInput = { type: "plan-reviewed", action: answer, reason: end.reason };
  await store.events.append(view.runId, reviewed, now);
  await store.events.append(
    view.runId,
    {
      type: "run-end",
      status: end.status,
      stopReason: end.stopReason,
      ...(record?.usage ? { usage: record.usage } : {}),
      ...(end.error ? { error: { ...end.error, retryable: false } } : {}),
    },
    now,
  );
  return store.runs.update(view.runId, {
    status: end.status,
    updatedAt: now,
    finishedAt: now,
    stopReason: end.stopReason,
    error: end.error ?? null,
  });
}

/** Ends a run whose review timed out (when it still awaits it): failed, REVIEW_TIMEOUT. Null when another process answered first. */
export async function expireReview(env: ReviewEnv, view: PlanReviewView): Promise<RunRecord | null> {
  try {
    await claimReview(env, view.runId);
  } catch {
    return null;
  }
  const minutes = Math.round((Date.parse(view.deadline) - Date.parse(view.requestedAt)) / 60_000);
  const message = `the plan was not reviewed within ${minutes} minute(s) (deadline ${view.deadline}); nothing was researched after it`;
  return endReviewedRun(env, view, "timeout", {
    status: "failed",
    stopReason: "review-timeout",
    reason: message,
    error: { code: "REVIEW_TIMEOUT", message },
  });
}

/** Ends every run whose review is past its deadline; returns their ids. */
export async function expireDueReviews(env: ReviewEnv): Promise<string[]> {
  const expired: string[] = [];
  for (const run of await env.store.runs.list({ status: "awaiting-review", limit: 1000 })) {
    const view = await readPlanReview(env.store, run.id).catch(() => null);
    if (view?.stage !== "pending" || env.clock.now() < Date.parse(view.deadline)) continue;
    if (await expireReview(env, view)) expired.push(run.id);
  }
  return expired;
}

/** The plan an answer approves and what it changed (the proposed plan checked against an edit's limits). */
export function approvedPlan(view: PlanReviewView, answer: PlanAnswer): ReviewedPlan {
  if (answer.action === "edit") {
    const { plan, changes } = applyPlanEdit(view.proposed, parsePlanEdit(answer.plan));
    return { action: "edit", plan, changes };
  }
  return { action: "approve", plan: view.proposed, changes: NO_CHANGES };
}

/** How an answered review left the run. */
export interface ReviewAnswered {
  /** The run as recorded: `interrupted` (approved or edited: to be resumed) or `cancelled` (rejected). */
  record: RunRecord;
  /** The review as answered. */
  review: PlanReviewView;
}

/**
 * Answers the review of `runId`. The answer is checked first (an edit against the plan's
 * limits), then `precheck` (that the run can be taken up here) for an approval: INPUT_INVALID,
 * CONFLICT or the precheck's error with nothing changed. Then the run is claimed from
 * `awaiting-review` and the answer recorded (see the module comment); the caller resumes an
 * approved run.
 */
export async function answerPlanReview(
  env: ReviewEnv,
  runId: string,
  answer: PlanAnswer,
  precheck?: (record: RunRecord) => Promise<void>,
): Promise<ReviewAnswered> {
  const view = await pendingReview(env, runId);
  const { store } = env;
  if (answer.action === "reject") {
    await claimReview(env, runId);
    const reason = answer.reason?.trim() || "rejected by the user";
    await endReviewedRun(env, view, "reject", {
      status: "cancelled",
      stopReason: "plan-rejected",
      reason,
    });
    return { record: (await store.runs.get(runId))!, review: (await readPlanReview(store, runId))! };
  }
  const approved = approvedPlan(view, answer);
  const record = await store.runs.get(runId);
  await precheck?.(record!);
  await claimReview(env, runId);
  const now = iso(env.clock);
  await store.journal(runId).put(PLAN_REVIEW_STATE, { kind: "state", value: approved });
  await store.events.append(
    runId,
    { type: "plan-reviewed", action: approved.action, plan: approved.plan, changes: approved.changes },
    now,
  );
  const updated = await store.runs.update(runId, {
    status: "interrupted",
    updatedAt: now,
    stopReason: APPROVED_STOP_REASON,
  });
  return { record: updated, review: (await readPlanReview(store, runId))! };
}
