/**
 * smtl's plan point (`reviewPlan`, the deep-research mode in the JSON protocol): the subtask
 * list of the agent's first reply (App. D.1), as a plan the user may approve, edit or reject
 * before any tool runs. An edited plan's items are the subtasks worked, in its order (`S1`, `S2`…
 * again), title and goal as shown; the agent is told the list was edited and shown it.
 */

import { reviewPlanPoint } from "../../core/plan-review-point.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { MAX_SUBTASKS, type Subtask } from "./research-protocol.ts";

/** What the agent is told before an edited list. */
export const EDITED_SUBTASKS_NOTE =
  "The user reviewed your subtask list and edited it. Work on these subtasks, in this order:";

/** The subtasks the run works: null when they are the agent's own, unedited; else the reviewed plan's. Stops the run for review when it waits for one. */
export function reviewSubtasks(ctx: RunContext, subtasks: readonly Subtask[]): Subtask[] | null {
  const { plan, changes } = reviewPlanPoint(ctx, {
    strategy: "smtl",
    kind: "subtasks",
    items: subtasks.map((s) => ({ id: s.id, title: s.title, description: s.goal })),
    limits: { minItems: 1, maxItems: MAX_SUBTASKS, maxChildren: 0 },
  });
  if (!changes) return null;
  return plan.items.map((item, i) => ({
    id: `S${i + 1}`,
    title: item.title,
    goal: item.description ?? item.title,
  }));
}
