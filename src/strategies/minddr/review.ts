/**
 * minddr's plan point (`reviewPlan`): the Planning agent's subtasks, as a plan the user may
 * approve, edit or reject before any DeepSearch agent starts. An edited plan's items are the
 * subtasks the agents run, in its order: each item's title and description become a subtask's
 * title and goal; its seed queries are the planner's while the item is not reworded, else its
 * title (compact agents start from them; appended agents choose their own first step).
 */

import { reviewPlanPoint } from "../../core/plan-review-point.ts";
import type { PlanItem } from "../../core/review-plan.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ResearchPlan, Subtask } from "./planner.ts";

/** Subtasks a reviewed plan may hold (the planner proposes 3–8; a fallback plan has one). */
const MAX_SUBTASKS = 8;

/** The subtasks the run researches: the plan's own, or the reviewed plan's. Stops the run for review when it waits for one. */
export function reviewSubtasks(ctx: RunContext, plan: ResearchPlan): ResearchPlan {
  const { plan: reviewed, changes } = reviewPlanPoint(ctx, {
    strategy: "minddr",
    kind: "subtasks",
    title: plan.title,
    items: plan.subtasks.map((s, i) => ({
      id: `T-${i + 1}`,
      title: s.title,
      description: s.goal,
      extras: { queries: s.queries },
    })),
    limits: { minItems: 1, maxItems: MAX_SUBTASKS, maxChildren: 0, textExtras: ["queries"] },
  });
  if (!changes) return plan;
  return { ...plan, title: reviewed.title ?? plan.title, subtasks: reviewed.items.map(subtaskOf) };
}

function subtaskOf(item: PlanItem): Subtask {
  const queries = item.extras?.queries;
  const seeds =
    Array.isArray(queries) && queries.length > 0 && queries.every((q) => typeof q === "string")
      ? (queries as string[]).slice(0, 4)
      : [item.title.slice(0, 200)];
  return { title: item.title, goal: item.description ?? item.title, queries: seeds };
}
