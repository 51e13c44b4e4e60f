/**
 * Plan review in the research world: a run with `reviewPlan` stopped after its plan (the world's
 * store closed, as a process that exits), then answered through a new Dossier over the same
 * store — as `dossier runs review` does — and run to its end with the approved plan.
 */

import type { DossierEvent, EventOf } from "../../src/core/events.ts";
import type { PlanEdit } from "../../src/core/plan-edit.ts";
import type { ReviewPlan } from "../../src/core/review-plan.ts";
import { createDossier } from "../../src/runtime/dossier.ts";
import type { ResearchRequest } from "../../src/runtime/research-request.ts";
import type { ResearchWorld } from "./world.ts";

const FAST_RETRY = { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20, jitter: 0, maxRetryAfterMs: 1000 };

/** A run stopped for review, and the plan it shows. */
export async function pausedForReview(world: ResearchWorld, request: ResearchRequest) {
  const paused = await world.research({ ...request, reviewPlan: true });
  const asked = paused.events.filter((e): e is EventOf<"plan-review"> => e.type === "plan-review");
  return { paused, plan: asked.at(-1)?.plan as ReviewPlan };
}

/**
 * Stops `request` for review, answers with `edit` of the plan shown (through a new Dossier over
 * the world's store) and runs it to its end.
 */
export async function reviewedRun(
  world: ResearchWorld,
  request: ResearchRequest,
  edit: (plan: ReviewPlan) => PlanEdit,
) {
  const { paused, plan } = await pausedForReview(world, request);
  if (paused.record.status !== "awaiting-review" || !plan) {
    throw new Error(
      `expected the run to await review, it is ${paused.record.status} (${paused.record.stopReason})`,
    );
  }
  const dossier = createDossier({
    config: world.config,
    env: {},
    cwd: world.home,
    toolPolicy: { retry: FAST_RETRY },
  });
  try {
    const answered = await dossier.runs.review(paused.runId, { action: "edit", plan: edit(plan) });
    const result = await answered.handle!.done;
    const events = await dossier.store.events.list(paused.runId);
    const resumedAt = events.findIndex((e) => e.type === "run-resume");
    return {
      paused,
      /** The plan shown for review. */
      plan,
      /** The plan approved (the edit applied). */
      approved: answered.review.plan,
      result,
      events,
      /** The events of the attempt after the review. */
      after: events.slice(resumedAt),
    };
  } finally {
    await dossier.close();
  }
}

/** Events of one type. */
export const eventsOf = <T extends DossierEvent["type"]>(events: readonly DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
