/**
 * The user's answer to a plan awaiting review — approve, edit or reject — and an edit applied to
 * the proposed plan: items added (no id), removed (left out), reworded (a new title or
 * description) and reordered (listed in another order), checked against the plan's limits before
 * anything runs. The result is the plan the run executes, and what changed.
 *
 * An item given with an id is the proposed item of that id, at the same level (a sub-item may
 * move to another parent); a description or sub-item list left out keeps the proposed one, an
 * empty description removes it. A reworded item loses the extras derived from its text
 * (`limits.textExtras`); its other extras stay.
 */

import { z } from "zod";
import { DossierError } from "./errors.ts";
import {
  MAX_ITEM_DESCRIPTION,
  MAX_ITEM_TITLE,
  MAX_PLAN_ITEMS,
  type PlanChanges,
  type PlanItem,
  type PlanSubItem,
  planItemIdSchema,
  planItems,
  type ReviewPlan,
} from "./review-plan.ts";

/** A sub-item as the user edits it: no id for a new one; extras are not edited (ignored). */
export interface PlanEditSubItem {
  id?: string | undefined;
  title: string;
  description?: string | undefined;
  /** Refused when not empty (a sub-item has none), so the edit says so rather than dropping them. */
  children?: unknown[] | undefined;
}

/** An item as the user edits it, with its sub-items. */
export interface PlanEditItem extends Omit<PlanEditSubItem, "children"> {
  children?: PlanEditSubItem[] | undefined;
}

const editFields = {
  id: planItemIdSchema.optional(),
  title: z.string().trim().min(1, "an item's title is empty").max(MAX_ITEM_TITLE),
  description: z.string().trim().max(MAX_ITEM_DESCRIPTION).optional(),
};

/** A sub-item as the user edits it (unknown fields such as `extras` are ignored). */
export const planEditSubItemSchema: z.ZodType<PlanEditSubItem, PlanEditSubItem> = z.object({
  ...editFields,
  children: z.array(z.unknown()).optional(),
});

/** An item as the user edits it (unknown fields such as `extras` are ignored). */
export const planEditItemSchema: z.ZodType<PlanEditItem, PlanEditItem> = z.object({
  ...editFields,
  children: z.array(planEditSubItemSchema).max(MAX_PLAN_ITEMS).optional(),
});

/** An edited plan: its items in the order to run them (the plan as shown, changed; other fields are ignored). */
export const planEditSchema = z.object({
  /** The report's working title, when the plan has one. */
  title: z.string().trim().min(1).max(MAX_ITEM_TITLE).optional(),
  items: z.array(planEditItemSchema).min(1, "the plan has no items").max(MAX_PLAN_ITEMS),
});
/** An edited plan. */
export type PlanEdit = z.output<typeof planEditSchema>;

/** The actions of an answer. */
export const REVIEW_ACTIONS = ["approve", "edit", "reject"] as const;

/** The user's answer to a plan awaiting review. */
export const planAnswerSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("approve") }),
  z.object({ action: z.literal("edit"), plan: planEditSchema }),
  z.object({
    action: z.literal("reject"),
    reason: z.string().trim().max(500).optional().describe("why, recorded with the run"),
  }),
]);
/** The user's answer to a plan awaiting review. */
export type PlanAnswer = z.output<typeof planAnswerSchema>;

/** An edited plan checked against its schema: INPUT_INVALID naming the first problem and where. */
export function parsePlanEdit(input: unknown): PlanEdit {
  const parsed = planEditSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? issue.path.join(".") : "plan";
  throw new DossierError("INPUT_INVALID", `the edited plan is not valid: ${where}: ${issue.message}`, {
    details: { path: issue.path.map(String), issues: parsed.error.issues.slice(0, 3) },
  });
}

/** An answer checked against its schema: INPUT_INVALID naming the first problem. */
export function parsePlanAnswer(input: unknown): PlanAnswer {
  const parsed = planAnswerSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? issue.path.join(".") : "answer";
  throw new DossierError("INPUT_INVALID", `the review answer is not valid: ${where}: ${issue.message}`, {
    details: { path: issue.path.map(String) },
  });
}

const invalid = (message: string) =>
  new DossierError("INPUT_INVALID", `the edited plan is not valid: ${message}`);

/**
 * Applies `edit` to `proposed`: the plan to execute and what changed. INPUT_INVALID (nothing
 * applied) when it breaks the plan's limits, names an id the proposed plan does not have at that
 * level, or names one twice.
 */
export function applyPlanEdit(
  proposed: ReviewPlan,
  edit: PlanEdit,
): { plan: ReviewPlan; changes: PlanChanges } {
  const { limits, kind } = proposed;
  const childKind = limits.childKind ?? "sub-item";
  if (edit.items.length < limits.minItems || edit.items.length > limits.maxItems) {
    throw invalid(
      `a ${proposed.strategy} plan has ${limits.minItems === limits.maxItems ? limits.minItems : `${limits.minItems} to ${limits.maxItems}`} ${kind}; this one has ${edit.items.length}`,
    );
  }
  const top = new Map(proposed.items.map((item) => [item.id, item]));
  const below = new Map<string, { item: PlanSubItem; parent: string }>();
  for (const { item, parent } of planItems(proposed.items)) {
    if (parent !== null) below.set(item.id, { item, parent });
  }
  const taken = new Set([...top.keys(), ...below.keys()]);
  const seen = new Set<string>();
  let fresh = 0;
  const newId = () => {
    let id: string;
    do id = `new-${++fresh}`;
    while (taken.has(id));
    taken.add(id);
    return id;
  };
  const changes: PlanChanges = { added: [], removed: [], reworded: [], reordered: false, retitled: false };
  const build = (
    given: Omit<PlanEditSubItem, "children">,
    where: string,
    original: PlanSubItem | undefined,
  ): PlanSubItem => {
    const id = given.id ?? newId();
    if (given.id !== undefined) {
      if (seen.has(given.id)) throw invalid(`${where}.id: "${given.id}" is listed twice`);
      seen.add(given.id);
    }
    if (!original) changes.added.push(id);
    const description =
      given.description === undefined ? original?.description : given.description || undefined;
    const reworded =
      original !== undefined && (given.title !== original.title || description !== original.description);
    if (reworded) changes.reworded.push(id);
    const extras = original?.extras
      ? Object.fromEntries(
          Object.entries(original.extras).filter(([key]) => !reworded || !limits.textExtras.includes(key)),
        )
      : undefined;
    return {
      id,
      title: given.title,
      ...(description ? { description } : {}),
      ...(extras && Object.keys(extras).length ? { extras } : {}),
    };
  };
  const items = edit.items.map((given, i): PlanItem => {
    const where = `items.${i}`;
    if (given.id !== undefined && !top.has(given.id)) {
      throw invalid(
        below.has(given.id)
          ? `${where}.id: "${given.id}" is a ${childKind}, not one of the ${kind}; list it under one of them`
          : `${where}.id: the proposed plan has no item "${given.id}"; leave the id out for a new item`,
      );
    }
    const original = given.id === undefined ? undefined : top.get(given.id);
    const item = build(given, where, original);
    const children = given.children ?? (original ? undefined : []);
    if (children === undefined) {
      // Left out: the proposed sub-items stay (each counted as seen).
      const kept = original?.children ?? [];
      for (const child of kept) {
        if (seen.has(child.id)) throw invalid(`${where}: its ${childKind} "${child.id}" is listed twice`);
        seen.add(child.id);
      }
      return kept.length ? { ...item, children: kept } : item;
    }
    if (children.length > limits.maxChildren) {
      throw invalid(
        limits.maxChildren === 0
          ? `${where}.children: the ${kind} of a ${proposed.strategy} plan have no sub-items`
          : `${where}.children: at most ${limits.maxChildren} ${childKind}s an item; this one has ${children.length}`,
      );
    }
    const built = children.map((child, j) => {
      const at = `${where}.children.${j}`;
      if (child.children?.length) throw invalid(`${at}.children: a ${childKind} has no sub-items`);
      if (child.id !== undefined && !below.has(child.id)) {
        throw invalid(
          top.has(child.id)
            ? `${at}.id: "${child.id}" is one of the ${kind}, not a ${childKind}`
            : `${at}.id: the proposed plan has no ${childKind} "${child.id}"; leave the id out for a new one`,
        );
      }
      const found = child.id === undefined ? undefined : below.get(child.id);
      if (found && found.parent !== item.id) changes.reordered = true;
      return build(child, at, found?.item);
    });
    return built.length ? { ...item, children: built } : item;
  });
  for (const { item } of planItems(proposed.items)) {
    if (!seen.has(item.id)) changes.removed.push(item.id);
  }
  const order = (list: readonly PlanItem[], keep: (id: string) => boolean) =>
    list.map((i) => i.id).filter(keep);
  const survives = (id: string) => seen.has(id);
  const sameOrder = (a: string[], b: string[]) => a.length === b.length && a.every((id, i) => id === b[i]);
  if (
    !sameOrder(
      order(proposed.items, survives),
      order(items, (id) => top.has(id)),
    )
  )
    changes.reordered = true;
  for (const item of items) {
    const before = top.get(item.id)?.children ?? [];
    const after = (item.children ?? []).filter((c) => below.get(c.id)?.parent === item.id);
    if (
      !sameOrder(
        order(before, survives),
        order(after, () => true),
      )
    )
      changes.reordered = true;
  }
  const title = edit.title ?? proposed.title;
  changes.retitled = title !== proposed.title;
  return { plan: { ...proposed, ...(title ? { title } : {}), items }, changes };
}
