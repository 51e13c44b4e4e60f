/**
 * The plan under review as the user edits it on the run page: a draft of the proposed plan's
 * items (reworded, removed, added, moved up or down; sub-items likewise under their item), the
 * problems that keep it from being sent (the plan's limits), and the answer it makes for
 * `POST /v1/runs/{id}/plan`. Pure; the panel draws it.
 */

import type { PlanItem, PlanLimits, PlanSubItem, ReviewPlan } from "./api.ts";

/** Characters of an item's title at most (as the server checks). */
export const MAX_TITLE = 300;
/** Characters of an item's description at most. */
export const MAX_DESCRIPTION = 2000;

/** A sub-item being edited: `id` is the proposed item's, absent for one the user added. */
export interface DraftSub {
  /** Stable key of the row while it is edited (the id, or `new-<n>`). */
  key: string;
  id?: string;
  title: string;
  description: string;
  extras?: Record<string, unknown>;
}

/** An item being edited, with its sub-items. */
export interface DraftItem extends DraftSub {
  children: DraftSub[];
}

/** A plan being edited. */
export interface PlanDraft {
  /** The report's working title, when the plan has one. */
  title: string | null;
  items: DraftItem[];
  /** The next number of a `new-<n>` key. */
  next: number;
}

const sub = (i: PlanSubItem): DraftSub => ({
  key: i.id,
  id: i.id,
  title: i.title,
  description: i.description ?? "",
  ...(i.extras ? { extras: i.extras } : {}),
});

/** The draft of a plan as proposed. */
export function draftOf(plan: ReviewPlan): PlanDraft {
  return {
    title: plan.title ?? null,
    items: plan.items.map((i) => ({ ...sub(i), children: (i.children ?? []).map(sub) })),
    next: 1,
  };
}

/** Where a row is: an item (`child` absent) or a sub-item of item `item`. */
export interface RowAt {
  item: number;
  child?: number;
}

function rows(draft: PlanDraft, at: RowAt): DraftSub[] | null {
  if (at.child === undefined) return draft.items;
  return draft.items[at.item]?.children ?? null;
}

function withRows(draft: PlanDraft, at: RowAt, list: DraftSub[]): PlanDraft {
  if (at.child === undefined) return { ...draft, items: list as DraftItem[] };
  const items = draft.items.slice();
  items[at.item] = { ...items[at.item]!, children: list };
  return { ...draft, items };
}

const indexOf = (at: RowAt) => at.child ?? at.item;

/** The draft with the row at `at` changed by `patch` (title or description). */
export function editRow(
  draft: PlanDraft,
  at: RowAt,
  patch: Partial<Pick<DraftSub, "title" | "description">>,
): PlanDraft {
  const list = rows(draft, at);
  const row = list?.[indexOf(at)];
  if (!list || !row) return draft;
  const next = list.slice();
  next[indexOf(at)] = { ...row, ...patch };
  return withRows(draft, at, next);
}

/** The draft without the row at `at` (an item goes with its sub-items). */
export function removeRow(draft: PlanDraft, at: RowAt): PlanDraft {
  const list = rows(draft, at);
  if (!list?.[indexOf(at)]) return draft;
  return withRows(
    draft,
    at,
    list.filter((_, i) => i !== indexOf(at)),
  );
}

/** The draft with the row at `at` moved `delta` places (-1 up, +1 down) among its siblings. */
export function moveRow(draft: PlanDraft, at: RowAt, delta: -1 | 1): PlanDraft {
  const list = rows(draft, at);
  const from = indexOf(at);
  const to = from + delta;
  if (!list?.[from] || to < 0 || to >= list.length) return draft;
  const next = list.slice();
  [next[from], next[to]] = [next[to]!, next[from]!];
  return withRows(draft, at, next);
}

/** The draft with a new, empty row: an item at the end, or a sub-item at the end of item `parent`. */
export function addRow(draft: PlanDraft, parent?: number): PlanDraft {
  const row: DraftSub = { key: `new-${draft.next}`, title: "", description: "" };
  const bumped = { ...draft, next: draft.next + 1 };
  if (parent === undefined) return { ...bumped, items: [...draft.items, { ...row, children: [] }] };
  const item = draft.items[parent];
  if (!item) return draft;
  return withRows(bumped, { item: parent, child: item.children.length }, [...item.children, row]);
}

/** The draft with the plan's title set (nothing when the plan has none). */
export function retitle(draft: PlanDraft, title: string): PlanDraft {
  return draft.title === null ? draft : { ...draft, title };
}

/** Why the draft cannot be sent as it is (empty when it can), in the plan's words. */
export function draftProblems(draft: PlanDraft, plan: Pick<ReviewPlan, "kind" | "limits">): string[] {
  const { limits } = plan;
  const problems: string[] = [];
  const n = draft.items.length;
  if (n < limits.minItems) problems.push(`The plan needs at least ${limits.minItems} ${plan.kind}.`);
  if (n > limits.maxItems) problems.push(`The plan may have at most ${limits.maxItems} ${plan.kind}.`);
  if (draft.title !== null && draft.title.trim() === "") problems.push("The title is empty.");
  const check = (row: DraftSub, name: string) => {
    if (row.title.trim() === "") problems.push(`${name} has no text.`);
    if (row.title.trim().length > MAX_TITLE) problems.push(`${name} is longer than ${MAX_TITLE} characters.`);
    if (row.description.trim().length > MAX_DESCRIPTION)
      problems.push(`${name}'s description is longer than ${MAX_DESCRIPTION} characters.`);
  };
  draft.items.forEach((item, i) => {
    check(item, `Item ${i + 1}`);
    if (item.children.length > limits.maxChildren)
      problems.push(`Item ${i + 1} may have at most ${limits.maxChildren} ${childKindOf(limits)}s.`);
    item.children.forEach((c, j) => {
      check(c, `Item ${i + 1}.${j + 1}`);
    });
  });
  return problems;
}

/** What a sub-item is called. */
export function childKindOf(limits: PlanLimits): string {
  return limits.childKind ?? "sub-item";
}

/** The row of `draft` as the edit sends it: the text, the description when it changed (or is new). */
function editedRow(row: DraftSub, proposed: PlanSubItem | undefined) {
  const title = row.title.trim();
  const description = row.description.trim();
  const before = proposed?.description ?? "";
  return {
    ...(row.id ? { id: row.id } : {}),
    title,
    ...(description !== before.trim() || (!proposed && description) ? { description } : {}),
  };
}

/** The plan the draft is, as `{action: "edit", plan}` sends it: items in order, each with its sub-items. */
export function editOf(draft: PlanDraft, proposed: ReviewPlan) {
  const byId = new Map<string, PlanSubItem>(proposed.items.map((i) => [i.id, i]));
  // A sub-item may have moved to another item: found among all the proposed sub-items.
  const children = new Map(proposed.items.flatMap((i) => (i.children ?? []).map((c) => [c.id, c] as const)));
  const hasChildren = proposed.limits.maxChildren > 0;
  return {
    ...(draft.title !== null ? { title: draft.title.trim() } : {}),
    items: draft.items.map((item) => ({
      ...editedRow(item, item.id ? byId.get(item.id) : undefined),
      ...(hasChildren
        ? { children: item.children.map((c) => editedRow(c, c.id ? children.get(c.id) : undefined)) }
        : {}),
    })),
  };
}

const same = (a: readonly PlanItem[], b: readonly PlanItem[]) => JSON.stringify(a) === JSON.stringify(b);

/** True when the draft differs from the plan as proposed (its answer would be an edit). */
export function isEdited(draft: PlanDraft, proposed: ReviewPlan): boolean {
  const shape = (
    items: readonly { id?: string; title: string; description?: string; children?: unknown }[],
  ) =>
    items.map((i) => ({
      id: i.id ?? null,
      title: i.title.trim(),
      description: (i.description ?? "").trim(),
      children: ((i.children ?? []) as PlanSubItem[]).map((c) => ({
        id: c.id ?? null,
        title: c.title.trim(),
        description: (c.description ?? "").trim(),
      })),
    }));
  if ((draft.title ?? "").trim() !== (proposed.title ?? "").trim()) return true;
  return !same(shape(draft.items) as never, shape(proposed.items) as never);
}

/** The strategy's own data of an item as short lines of text (`queries: a; b`). */
export function extrasLines(extras: Record<string, unknown> | undefined, max = 200): string[] {
  if (!extras) return [];
  return Object.entries(extras).flatMap(([key, value]) => {
    if (value === undefined || value === null) return [];
    const text = Array.isArray(value)
      ? value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("; ")
      : typeof value === "string"
        ? value
        : JSON.stringify(value);
    if (!text) return [];
    const line = `${key}: ${text}`;
    return [line.length > max ? `${line.slice(0, max - 1)}…` : line];
  });
}

/** "in 3 h 20 min", "in 12 min", "in under a minute", or "passed". */
export function timeLeft(deadline: string, now: number): string {
  const ms = Date.parse(deadline) - now;
  if (!Number.isFinite(ms)) return "";
  if (ms <= 0) return "passed";
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "in under a minute";
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const parts = [days ? `${days} d` : "", hours ? `${hours} h` : "", !days && mins ? `${mins} min` : ""];
  return `in ${parts.filter(Boolean).join(" ")}`;
}
