/** The event timeline's pure parts: one line per event, the filter, and the visible window. */

import { isReplan, replanSummary } from "./plan-diff.ts";
import type { RunEvent } from "./run-state.ts";

const s = (v: unknown) => (typeof v === "string" ? v : "");

/** A one-line summary of an event for the timeline. */
export function eventSummary(e: RunEvent): string {
  switch (e.type) {
    case "phase":
      return `${s(e.phase)}${e.detail ? ` — ${s(e.detail)}` : ""}`;
    case "gate-verdict":
      return `${s(e.nodeId)}: ${s(e.verdict)}${e.feedback ? ` — ${s(e.feedback)}` : ""}`;
    case "node-pruned":
      return `${s(e.nodeId)} pruned — ${s(e.reason)}`;
    case "node-assessed":
      return `${s(e.nodeId)}: ${s(e.verdict)} — ${s(e.reason)}`;
    case "decision":
      return `${s(e.decision)}: ${s(e.reason)}`;
    case "plan-update": {
      if (isReplan(e)) return replanSummary(e);
      const nodes = (e.graph as { nodes?: unknown[] } | undefined)?.nodes;
      return `iteration ${String(e.iteration)}: ${Array.isArray(nodes) ? nodes.length : 0} nodes`;
    }
    case "node-start":
      return `${s(e.nodeId)} ${s(e.title)}`;
    case "node-end":
      return `${s(e.nodeId)} ${s(e.status)}`;
    case "tool-start":
    case "tool-end":
      return `${s(e.tool)}${e.provider ? ` (${s(e.provider)})` : ""}${e.type === "tool-end" && e.ok === false ? " failed" : ""}`;
    case "llm-end":
      return `${s(e.role)} · ${s(e.model)}${e.ok === false ? " failed" : ""}`;
    case "warning":
      return `${s(e.code)}: ${s(e.message)}`;
    case "section-written":
      return s(e.title);
    case "run-end":
      return `${s(e.status)}: ${s(e.stopReason)}`;
    case "run-start":
      return `${s(e.strategy)}: ${s(e.query)}`;
    default:
      return "";
  }
}

/** Events of `type` (all when empty) whose line contains `text` (case-insensitive). */
export function filterEvents(events: readonly RunEvent[], type: string, text: string): RunEvent[] {
  const q = text.trim().toLowerCase();
  return events.filter(
    (e) =>
      (!type || e.type === type) &&
      (!q || e.type.includes(q) || eventSummary(e).toLowerCase().includes(q) || (e.scope ?? "").includes(q)),
  );
}

/** The rows to draw of a fixed-row-height list scrolled to `scrollTop`. */
export function visibleWindow(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + Math.ceil(viewport / rowHeight) + overscan);
  return { start, end: Math.max(start, end) };
}
