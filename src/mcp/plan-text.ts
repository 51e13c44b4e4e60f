/**
 * A plan under review as plain text, for MCP clients: elicitation forms hold flat primitive
 * fields only, so the editable plan is one text field with one item per line — `[id] title`
 * for a proposed item, an indented `- [id] title` for a sub-item under the item above — and
 * the lines the user sends back are read into an edit: a line that keeps its `[id]` is that
 * item (reworded when its text changed), a line without one is added, a proposed item whose
 * line is gone is removed, and the lines' order is the order to run them. The model's text is
 * shown on one line, with no control characters.
 */

import type { PlanEdit, PlanEditItem, PlanEditSubItem } from "../core/plan-edit.ts";
import type { PlanItem, PlanSubItem, ReviewPlan } from "../core/review-plan.ts";
import { stripControlChars } from "../core/terminal-text.ts";

/** Untrusted text on one line: control characters dropped, runs of white space one space. */
export function oneLine(text: string): string {
  return stripControlChars(text).replace(/\s+/g, " ").trim();
}

/** The plan as editable lines: `[id] title`, sub-items indented as `  - [id] title`. */
export function planLines(plan: ReviewPlan): string {
  return plan.items
    .flatMap((item) => [
      `[${item.id}] ${oneLine(item.title)}`,
      ...(item.children ?? []).map((c) => `  - [${c.id}] ${oneLine(c.title)}`),
    ])
    .join("\n");
}

/** The plan as a numbered list to read: titles, descriptions and the strategy's data. */
export function planListing(plan: { readonly items: readonly PlanItem[] }): string {
  const extras = (item: PlanSubItem) =>
    Object.entries(item.extras ?? {})
      .filter(([, v]) => v !== undefined && v !== null)
      .map(
        ([k, v]) =>
          `${k}: ${oneLine(Array.isArray(v) ? v.map(String).join("; ") : typeof v === "string" ? v : JSON.stringify(v))}`,
      );
  const lines = (item: PlanSubItem, label: string, indent: string) => [
    `${indent}${label} [${item.id}] ${oneLine(item.title)}`,
    ...(item.description ? [`${indent}   ${oneLine(item.description)}`] : []),
    ...extras(item).map((e) => `${indent}   (${e})`),
  ];
  return plan.items
    .flatMap((item, i) => [
      ...lines(item, `${i + 1}.`, ""),
      ...(item.children ?? []).flatMap((c, j) => lines(c, `${i + 1}.${j + 1}`, "   ")),
    ])
    .join("\n");
}

const ID_LINE = /^\[([A-Za-z0-9][A-Za-z0-9._-]{0,39})\]\s*(.*)$/;
/** A list marker the user may have put before a line: `-`, `*`, `•`, `1.`, `1)`. */
const MARKER = /^(?:[-*•]|\d+[.)])\s+/;

/** One line read: its id (absent for a new item) and its text. */
function readLine(raw: string): { id?: string; title: string } {
  const text = raw.trim().replace(MARKER, "");
  const m = ID_LINE.exec(text);
  return m ? { id: m[1]!, title: m[2]!.trim() } : { title: text.trim() };
}

/**
 * The edit that `text` (the plan's lines as the user left them) makes of `plan`. A line that
 * keeps an item's id and its text (as shown, on one line) keeps the item's own text; an indented
 * line is a sub-item of the item above when the plan's items have sub-items (else an item).
 */
export function editOfLines(text: string, plan: ReviewPlan): PlanEdit {
  const proposed = new Map(plan.items.map((i) => [i.id, i] as const));
  const proposedChildren = new Map(
    plan.items.flatMap((i) => (i.children ?? []).map((c) => [c.id, c] as const)),
  );
  const nests = plan.limits.maxChildren > 0;
  // Unchanged text keeps the item's exact title (which may hold what one line cannot show).
  const titleOf = (line: { id?: string; title: string }, from: Map<string, PlanSubItem>) => {
    const before = line.id ? from.get(line.id) : undefined;
    return before && oneLine(before.title) === line.title ? before.title : line.title;
  };
  const items: PlanEditItem[] = [];
  for (const raw of stripControlChars(text).split("\n")) {
    if (!raw.trim()) continue;
    const line = readLine(raw);
    const indented = /^\s/.test(raw) && nests && items.length > 0;
    if (indented) {
      const child: PlanEditSubItem = {
        ...(line.id ? { id: line.id } : {}),
        title: titleOf(line, proposedChildren),
      };
      const parent = items[items.length - 1]!;
      parent.children = [...(parent.children ?? []), child];
      continue;
    }
    items.push({
      ...(line.id ? { id: line.id } : {}),
      title: titleOf(line, proposed),
      // A proposed item's sub-items are the lines under it: none left means none kept.
      ...(nests ? { children: [] } : {}),
    });
  }
  return { ...(plan.title ? { title: plan.title } : {}), items };
}

/** True when `edit` is `plan` as proposed: same items, same text, same order. */
export function editChangesNothing(edit: PlanEdit, plan: ReviewPlan): boolean {
  const shape = (items: readonly { id?: string | undefined; title: string; children?: unknown }[]): unknown =>
    items.map((i) => ({
      id: i.id ?? null,
      title: i.title,
      children: shape((i.children ?? []) as { id?: string; title: string }[]),
    }));
  return JSON.stringify(shape(edit.items)) === JSON.stringify(shape(plan.items));
}
