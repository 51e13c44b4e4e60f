/**
 * warp's plan point (`reviewPlan`): the sparse level-1 outline INITIALIZE wrote (Eq. 1) — the
 * title and each section with its writing plan — as a plan the user may approve, edit or reject
 * before any section is searched or written. An edited plan becomes the outline O_0, its items
 * the level-1 sections in order (the description a section's writing plan); the deepening that
 * follows is the policy's, as the method has it.
 */

import { createOutline } from "../../core/outline.ts";
import { reviewPlanPoint } from "../../core/plan-review-point.ts";
import type { WarpRun } from "./run-state.ts";

/** Level-1 sections of an outline at most (INITIALIZE's range). */
const MAX_SECTIONS = 12;

/** Replaces the run's outline with the reviewed one; stops the run for review when it waits for one. */
export function reviewOutline(run: WarpRun): void {
  const { ctx, state } = run;
  if (run.stopReason) return;
  const { plan, changes } = reviewPlanPoint(ctx, {
    strategy: "warp",
    kind: "sections",
    title: state.title,
    items: state.outline.sections.map((s) => ({
      id: s.id,
      title: s.title,
      ...(s.plan.trim() ? { description: s.plan } : {}),
    })),
    limits: { minItems: 1, maxItems: MAX_SECTIONS, maxChildren: 0 },
  });
  if (!changes) return;
  state.title = plan.title ?? state.title;
  state.outline = createOutline(
    plan.items.map((item) => ({ title: item.title, plan: item.description ?? "" })),
    { minSections: 1, maxSections: MAX_SECTIONS },
  );
  ctx.emit({ type: "outline-update", outline: state.outline, reason: "plan review" });
}
