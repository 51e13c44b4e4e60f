/**
 * Re-plans in a run's trace: the plan before and after a `plan-update` that carries the
 * planner's diff, as lists a reader can follow — nodes added, pruned, changed (field by field),
 * kept, and changes the merge ignored. Pure; the timeline draws the result as text.
 */

import type { PlanNodeView, RunEvent } from "./run-state.ts";

/** A plan node as the trace shows it (any recorded status, no findings). */
export type PlanNodeLine = Omit<PlanNodeView, "status" | "summary"> & { status: string };

/** One changed field of a node kept by a re-plan. */
export interface FieldChange {
  field: "type" | "title" | "goal" | "deps" | "depth";
  before: string;
  after: string;
}

/** What a re-plan changed. */
export interface PlanChange {
  seq: number;
  iteration: number;
  /** The plan before, or null when its event is no longer among the loaded ones. */
  before: PlanNodeLine[] | null;
  after: PlanNodeLine[];
  added: PlanNodeLine[];
  /** Nodes the re-plan pruned (pending before, pruned after). */
  pruned: PlanNodeLine[];
  changed: { node: PlanNodeLine; fields: FieldChange[] }[];
  /** Ids of nodes the re-plan left as they were. */
  kept: string[];
  /** Ids of finished nodes the planner tried to change; the merge kept them as they were. */
  ignored: string[];
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const ids = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** The nodes of an event's `graph` field (empty when it has none). */
export function planNodes(graph: unknown): PlanNodeLine[] {
  const nodes = (graph as { nodes?: unknown } | null | undefined)?.nodes;
  if (!Array.isArray(nodes)) return [];
  return nodes
    .filter((n): n is Record<string, unknown> => n !== null && typeof n === "object")
    .map((n) => ({
      id: str(n.id),
      type: str(n.type),
      title: str(n.title),
      goal: str(n.goal),
      deps: ids(n.deps),
      depth: typeof n.depth === "number" ? n.depth : 1,
      status: str(n.status) || "pending",
    }));
}

/** True for a `plan-update` that records a re-plan (it carries the planner's diff). */
export function isReplan(e: RunEvent): boolean {
  return e.type === "plan-update" && e.diff !== null && typeof e.diff === "object";
}

/** The diff's id lists, each empty when absent. */
export function diffOf(
  e: RunEvent,
): Record<"added" | "pruned" | "rewired" | "updated" | "ignored", string[]> {
  const d = (e.diff ?? {}) as Record<string, unknown>;
  return {
    added: ids(d.added),
    pruned: ids(d.pruned),
    rewired: ids(d.rewired),
    updated: ids(d.updated),
    ignored: ids(d.ignored),
  };
}

function summaryLine(
  iteration: unknown,
  counts: { before: number; after: number; added: number; pruned: number; changed: number; ignored: number },
): string {
  const parts = [
    counts.added ? `+${counts.added} added` : "",
    counts.pruned ? `−${counts.pruned} pruned` : "",
    counts.changed ? `${counts.changed} changed` : "",
    counts.ignored ? `${counts.ignored} ignored` : "",
  ].filter(Boolean);
  const tail = parts.length ? ` (${parts.join(", ")})` : "";
  return `iteration ${String(iteration)}: re-plan, ${counts.before} → ${counts.after} nodes${tail}`;
}

/**
 * The one-line summary of a re-plan from the planner's diff alone:
 * `iteration 2: re-plan, 4 → 7 nodes (+3 added, −1 pruned)`.
 */
export function replanSummary(e: RunEvent): string {
  const d = diffOf(e);
  const after = planNodes(e.graph).length;
  return summaryLine(e.iteration, {
    before: after - d.added.length,
    after,
    added: d.added.length,
    pruned: d.pruned.length,
    changed: new Set([...d.rewired, ...d.updated]).size,
    ignored: d.ignored.length,
  });
}

/** The same line from a full comparison (it also counts nodes the merge itself rewired). */
export function changeSummary(c: PlanChange): string {
  return summaryLine(c.iteration, {
    before: c.before?.length ?? c.after.length - c.added.length,
    after: c.after.length,
    added: c.added.length,
    pruned: c.pruned.length,
    changed: c.changed.length,
    ignored: c.ignored.length,
  });
}

function fieldChanges(before: PlanNodeLine, after: PlanNodeLine): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of ["type", "title", "goal", "depth"] as const) {
    if (before[field] !== after[field])
      changes.push({ field, before: String(before[field]), after: String(after[field]) });
  }
  const a = [...before.deps].sort().join(", ");
  const b = [...after.deps].sort().join(", ");
  if (a !== b) changes.push({ field: "deps", before: a || "none", after: b || "none" });
  return changes;
}

/**
 * What the re-plan `e` changed, against the plan of the latest `plan-update` before it in
 * `events` (in seq order). Without that earlier plan, the diff's id lists alone say what changed.
 */
export function planChange(events: readonly RunEvent[], e: RunEvent): PlanChange {
  let previous: RunEvent | undefined;
  for (const x of events) {
    if (x.seq >= e.seq) break;
    if (x.type === "plan-update") previous = x;
  }
  const before = previous ? planNodes(previous.graph) : null;
  const after = planNodes(e.graph);
  const d = diffOf(e);
  const old = new Map((before ?? []).map((n) => [n.id, n]));
  const byId = new Map(after.map((n) => [n.id, n]));
  const wasLive = (id: string) => old.has(id) && old.get(id)!.status !== "pruned";
  const added = before ? after.filter((n) => !old.has(n.id)) : after.filter((n) => d.added.includes(n.id));
  const pruned = before
    ? after.filter((n) => n.status === "pruned" && wasLive(n.id))
    : after.filter((n) => d.pruned.includes(n.id));
  const changed: PlanChange["changed"] = [];
  for (const node of after) {
    const earlier = old.get(node.id);
    if (!earlier || node.status === "pruned") continue;
    const fields = fieldChanges(earlier, node);
    if (fields.length > 0) changed.push({ node, fields });
  }
  if (!before) {
    for (const id of new Set([...d.rewired, ...d.updated])) {
      const node = byId.get(id);
      if (node) changed.push({ node, fields: [] });
    }
  }
  const touched = new Set([...added, ...pruned, ...changed.map((c) => c.node)].map((n) => n.id));
  return {
    seq: e.seq,
    iteration: typeof e.iteration === "number" ? e.iteration : 0,
    before,
    after,
    added,
    pruned,
    changed,
    kept: after.filter((n) => !touched.has(n.id) && n.status !== "pruned").map((n) => n.id),
    ignored: d.ignored,
  };
}

/** How a node of the before or after list fared: `+` added, `−` pruned, `~` changed, or kept. */
export function nodeMark(change: PlanChange, id: string): "added" | "pruned" | "changed" | "kept" {
  if (change.added.some((n) => n.id === id)) return "added";
  if (change.pruned.some((n) => n.id === id)) return "pruned";
  if (change.changed.some((c) => c.node.id === id)) return "changed";
  return "kept";
}
