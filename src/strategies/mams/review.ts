/**
 * The mams strategy's plan point (`reviewPlan`): the plan of the search agent's first turn — the
 * Markdown list in the Markov state ⟨memory, plan, report⟩ — as a plan of steps (a list item
 * each, indented items its sub-steps) the user may approve, edit or reject before any tool runs.
 * An edited plan becomes the state's plan, and the first turn is asked again under it, so its
 * calls serve the edited plan (its reply's own plan is not taken that turn); from then on the
 * state agent rewrites the plan at every chunk (Eq. 4), as the method has it.
 */

import { reviewPlanPoint } from "../../core/plan-review-point.ts";
import type { PlanItem } from "../../core/review-plan.ts";
import type { SearchReply } from "./protocol.ts";
import type { MamsRun } from "./run-state.ts";

/** Steps of a reviewed plan at most, and sub-steps of one step. */
const MAX_STEPS = 20;
const MAX_SUB_STEPS = 10;

const ITEM = /^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$/;
const BOX = /^\[([ xX])\]\s*/;

/** A Markdown list plan as steps: top-level items, indented items their sub-steps, `[x]` kept as `done`. */
export function planSteps(plan: string): PlanItem[] {
  const steps: PlanItem[] = [];
  for (const line of plan.replace(/\r\n/g, "\n").split("\n")) {
    const m = ITEM.exec(line);
    if (!m || !m[2]!.trim()) continue;
    const box = BOX.exec(m[2]!);
    const text = m[2]!.slice(box?.[0].length ?? 0).trim();
    if (!text) continue;
    const done = box ? box[1] !== " " : undefined;
    const parent = steps.at(-1);
    if (m[1]!.length >= 2 && parent) {
      parent.children ??= [];
      const children = parent.children;
      children.push({
        id: `${parent.id}.${children.length + 1}`,
        title: text,
        ...(done === undefined ? {} : { extras: { done } }),
      });
    } else {
      steps.push({
        id: `P${steps.length + 1}`,
        title: text,
        ...(done === undefined ? {} : { extras: { done } }),
      });
    }
  }
  return steps;
}

/** Steps as the state's Markdown list (open steps `[ ]`, finished ones `[x]`). */
export function planList(steps: readonly PlanItem[]): string {
  const line = (step: PlanItem, indent: string) =>
    `${indent}- [${step.extras?.done === true ? "x" : " "}] ${step.title}${step.description ? `: ${step.description}` : ""}`;
  return steps.flatMap((s) => [line(s, ""), ...(s.children ?? []).map((c) => line(c, "  "))]).join("\n");
}

/**
 * The first turn's reply under the reviewed plan: `asked` itself when the plan goes on as the
 * agent wrote it; else the turn asked again (`ask`) under the edited plan, with that plan. Stops
 * the run for review when it waits for one. Later turns pass through.
 */
export async function reviewFirstTurn<T extends { reply: SearchReply } | { stop: string }>(
  run: MamsRun,
  asked: T,
  ask: () => Promise<T>,
): Promise<T> {
  if (!("reply" in asked) || run.figures.toolCalls > 0 || run.figures.turns > 0) return asked;
  const steps = planSteps(asked.reply.plan);
  if (steps.length === 0) return asked;
  const { plan, changes } = reviewPlanPoint(run.ctx, {
    strategy: "mams",
    kind: "steps",
    items: steps,
    limits: { minItems: 1, maxItems: MAX_STEPS, maxChildren: MAX_SUB_STEPS, childKind: "step" },
  });
  if (!changes) return asked;
  const edited = planList(plan.items);
  run.state.plan = edited;
  run.ctx.emit({
    type: "decision",
    decision: "continue",
    reason: "plan review: the first turn asked again under the edited plan",
  });
  const again = await ask();
  return "reply" in again ? { ...again, reply: { ...again.reply, plan: edited } } : again;
}
