/**
 * The plan point of a run with `reviewPlan`: where a strategy, its plan made, either goes on with
 * the plan the user approved or stops the run for review. The answer lives in the run's step
 * journal (`state:plan-review`, written by whoever answered), so the run — taken up again from
 * its journal, its planning calls replayed — reaches the same point and goes on with exactly the
 * approved plan. Without an answer the plan is recorded (`plan-review`: the plan as data and the
 * review's deadline) and the strategy stops with AWAITING_REVIEW, which ends the attempt as
 * `awaiting-review` (runtime/run.ts). Without `reviewPlan` the strategy's own plan goes on, untouched.
 */

import { z } from "zod";
import type { Clock } from "./clock.ts";
import { DossierError } from "./errors.ts";
import type { EventInput } from "./events.ts";
import type { StepJournal } from "./journal.ts";
import {
  boundedPlan,
  type PlanChanges,
  planChangesSchema,
  type ReviewPlan,
  type ReviewPlanInput,
  reviewPlanSchema,
  unchanged,
} from "./review-plan.ts";

/** The journal key of a run's answered review. */
export const PLAN_REVIEW_STATE = "state:plan-review";

/** Minutes a plan waits for its review by default (a day). */
export const DEFAULT_REVIEW_TIMEOUT_MINUTES = 1440;

/** An answered review as the journal keeps it: the plan to execute and what the review changed. */
export const reviewedPlanSchema = z.object({
  action: z.enum(["approve", "edit"]),
  plan: reviewPlanSchema,
  changes: planChangesSchema,
});
/** An answered review. */
export type ReviewedPlan = z.output<typeof reviewedPlanSchema>;

/** What the plan point needs of a run (a strategy's `RunContext` has it). */
export interface ReviewPointContext {
  /** The run's options: `reviewPlan` (true to review) and `reviewTimeoutMinutes`. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly journal: StepJournal;
  readonly clock: Clock;
  emit(event: EventInput): unknown;
}

/** True when a run with these options stops after its plan for review. */
export function reviewsPlan(options: Readonly<Record<string, unknown>>): boolean {
  return options.reviewPlan === true;
}

/** Minutes a run with these options waits for its review. */
export function reviewTimeoutOf(options: Readonly<Record<string, unknown>>): number {
  const minutes = options.reviewTimeoutMinutes;
  return typeof minutes === "number" && minutes > 0 ? minutes : DEFAULT_REVIEW_TIMEOUT_MINUTES;
}

/** The plan a strategy goes on with: `changes` null when it is its own plan, unedited. */
export interface PlanAfterReview {
  plan: ReviewPlan;
  changes: PlanChanges | null;
}

/** The run stopped for review (not a failure): ends the attempt `awaiting-review`. */
export function awaitingReview(deadline: string): DossierError {
  return new DossierError("AWAITING_REVIEW", `the plan awaits review until ${deadline}`, {
    details: { deadline },
  });
}

/** The review answered in the journal, if any (an entry that is not one is ignored). */
export function answeredReview(journal: StepJournal): ReviewedPlan | null {
  const entry = journal.get(PLAN_REVIEW_STATE);
  if (entry?.kind !== "state") return null;
  const parsed = reviewedPlanSchema.safeParse(entry.value);
  return parsed.success ? parsed.data : null;
}

/**
 * The plan point: `proposed` when the run does not review its plan; the approved plan when the
 * review is answered (`changes` null when that is `proposed`, unedited — the strategy goes on with
 * its own plan; otherwise it builds the plan to run from the approved items alone); otherwise
 * records `proposed` for review and throws AWAITING_REVIEW.
 */
export function reviewPlanPoint(ctx: ReviewPointContext, proposed: ReviewPlanInput): PlanAfterReview {
  // Without a review the strategy's own plan goes on untouched (nothing here may fail the run).
  if (!reviewsPlan(ctx.options)) return { plan: proposed as ReviewPlan, changes: null };
  const plan = reviewPlanSchema.parse(boundedPlan(proposed));
  const answered = answeredReview(ctx.journal);
  if (answered) {
    // The plan shown is the plan executed: the strategy's own only when its replayed plan is
    // that plan, unedited (a planning call that failed at first may answer otherwise now).
    if (unchanged(answered.changes) && JSON.stringify(answered.plan) === JSON.stringify(plan)) {
      return { plan, changes: null };
    }
    return { plan: answered.plan, changes: answered.changes };
  }
  const timeoutMinutes = reviewTimeoutOf(ctx.options);
  const deadline = new Date(ctx.clock.now() + timeoutMinutes * 60_000).toISOString();
  ctx.emit({ type: "plan-review", plan, deadline, timeoutMinutes });
  throw awaitingReview(deadline);
}
