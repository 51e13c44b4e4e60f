/**
 * A strategy's plan as the user reviews it (`reviewPlan`): strategy-neutral data — ordered items
 * with an id, a title, an optional description and optional sub-items — plus what an edit may
 * do (`limits`) and, per item, the strategy's own data (`extras`, shown but not edited). Each
 * strategy says what its items are (`kind`: subtasks, sections, steps…): graph's sections with
 * the subtasks that serve them, minddr's and smtl's subtasks, warp's sections, mams' plan steps,
 * the offline strategy's facets.
 */

import { z } from "zod";

/** Characters of an item's title at most. */
export const MAX_ITEM_TITLE = 300;
/** Characters of an item's description at most. */
export const MAX_ITEM_DESCRIPTION = 2000;
/** Items of one level at most, whatever the strategy allows. */
export const MAX_PLAN_ITEMS = 30;

/** An item's id: letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
export const planItemIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, "expected an id of letters, digits, '.', '_' or '-'");

/** A sub-item of a plan (graph: a subtask serving a section; mams: a sub-step). */
export interface PlanSubItem {
  /** Stable within the plan: the strategy's own id (`T-3`, `1`, `S2`), `new-<n>` for an item a review added. */
  id: string;
  /** The item's text: a subtask, a section heading, a plan step. */
  title: string;
  /** What the item is to cover, when the strategy has more than a title. */
  description?: string;
  /** The strategy's own data of the item (seed queries, a node's type and dependencies): shown, not edited. */
  extras?: Record<string, unknown>;
}

/** One item of a plan: a sub-item's fields and, optionally, its sub-items (two levels at most). */
export interface PlanItem extends PlanSubItem {
  children?: PlanSubItem[];
}

const itemFields = {
  id: planItemIdSchema,
  title: z.string().trim().min(1).max(MAX_ITEM_TITLE),
  description: z.string().trim().max(MAX_ITEM_DESCRIPTION).optional(),
  extras: z.record(z.string(), z.unknown()).optional(),
};

/** A sub-item of a plan. */
export const planSubItemSchema: z.ZodType<PlanSubItem, PlanSubItem> = z.object(itemFields);

/** One item of a plan. */
export const planItemSchema: z.ZodType<PlanItem, PlanItem> = z.object({
  ...itemFields,
  children: z.array(planSubItemSchema).max(MAX_PLAN_ITEMS).optional(),
});

/** What an edit of a plan may do. */
export const planLimitsSchema = z.object({
  /** Items at least and at most. */
  minItems: z.number().int().min(1),
  maxItems: z.number().int().min(1).max(MAX_PLAN_ITEMS),
  /** Sub-items of one item at most (0: the items have none). */
  maxChildren: z.number().int().min(0).max(MAX_PLAN_ITEMS),
  /** What a sub-item is (`subtask`, `step`), when items have some. */
  childKind: z.string().optional(),
  /** Keys of `extras` derived from an item's text: dropped when the item is reworded. */
  textExtras: z.array(z.string()).default([]),
});
/** What an edit of a plan may do. */
export type PlanLimits = z.output<typeof planLimitsSchema>;

/** A plan as the user reviews it. */
export const reviewPlanSchema = z.object({
  /** The strategy that made it. */
  strategy: z.string(),
  /** What the items are: `subtasks`, `sections`, `steps`, `facets`. */
  kind: z.string(),
  /** The report's working title, when the strategy has one; a review may change it. */
  title: z.string().trim().min(1).max(MAX_ITEM_TITLE).optional(),
  items: z.array(planItemSchema).max(MAX_PLAN_ITEMS),
  limits: planLimitsSchema,
});
/** A plan as the user reviews it. */
export type ReviewPlan = z.output<typeof reviewPlanSchema>;
/** A plan as a strategy builds it (defaults not applied). */
export type ReviewPlanInput = z.input<typeof reviewPlanSchema>;

/** What a review changed: item ids added, removed, reworded, and whether the order or title changed. */
export const planChangesSchema = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  reworded: z.array(z.string()),
  /** Surviving items (or sub-items under their parent) in another order, or moved to another parent. */
  reordered: z.boolean(),
  retitled: z.boolean(),
});
/** What a review changed. */
export type PlanChanges = z.output<typeof planChangesSchema>;

/** No change. */
export const NO_CHANGES: PlanChanges = {
  added: [],
  removed: [],
  reworded: [],
  reordered: false,
  retitled: false,
};

/** True when `changes` changes nothing. */
export function unchanged(changes: PlanChanges): boolean {
  return (
    changes.added.length === 0 &&
    changes.removed.length === 0 &&
    changes.reworded.length === 0 &&
    !changes.reordered &&
    !changes.retitled
  );
}

/**
 * A strategy's plan cut to the shape's bounds, so a long or empty model text never fails the run:
 * titles to {@link MAX_ITEM_TITLE} characters (an empty one named `(untitled)`), descriptions to
 * {@link MAX_ITEM_DESCRIPTION} (an empty one left out), at most {@link MAX_PLAN_ITEMS} items a level.
 */
export function boundedPlan(plan: ReviewPlanInput): ReviewPlanInput {
  const clip = (text: string, max: number) => {
    const t = text.trim();
    return t.length > max ? `${t.slice(0, max - 1)}…` : t;
  };
  const sub = (i: PlanSubItem): PlanSubItem => {
    const description = i.description === undefined ? "" : clip(i.description, MAX_ITEM_DESCRIPTION);
    return {
      id: i.id,
      title: clip(i.title, MAX_ITEM_TITLE) || "(untitled)",
      ...(description ? { description } : {}),
      ...(i.extras ? { extras: i.extras } : {}),
    };
  };
  const item = (i: PlanItem): PlanItem => ({
    ...sub(i),
    ...(i.children ? { children: i.children.slice(0, MAX_PLAN_ITEMS).map(sub) } : {}),
  });
  const title = plan.title === undefined ? "" : clip(plan.title, MAX_ITEM_TITLE);
  const { title: _, ...rest } = plan;
  return { ...rest, ...(title ? { title } : {}), items: plan.items.slice(0, MAX_PLAN_ITEMS).map(item) };
}

/** Every item of a plan with its parent's id (null at the top), in document order. */
export function planItems(items: readonly PlanItem[]): { item: PlanSubItem; parent: string | null }[] {
  return items.flatMap((item) => [
    { item, parent: null },
    ...(item.children ?? []).map((child) => ({ item: child, parent: item.id })),
  ]);
}
