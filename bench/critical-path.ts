/**
 * The critical-path lower bound of a run, from its event log: the run's timeline is cut into
 * phases at its `phase` events; within a phase, calls of different scopes (agents) are
 * independent and calls of one scope form a chain. The bound is the sum over phases of the
 * longest scope's busy time (the union of its call spans, outermost spans only). Scopes that
 * are in fact sequential within a phase only make the bound lower, so it never overstates.
 */

import type { DossierEvent } from "../src/core/events.ts";

export interface Span {
  scope: string;
  start: number;
  end: number;
}

/** Call spans (model and tool calls), outermost per scope. */
export function callSpans(events: readonly DossierEvent[]): Span[] {
  const open = new Map<string, { scope: string; start: number }>();
  const spans: Span[] = [];
  for (const e of events) {
    const t = Date.parse(e.ts);
    if (e.type === "llm-start" || e.type === "tool-start")
      open.set(e.callId, { scope: e.scope ?? "run", start: t });
    if (e.type === "llm-end" || e.type === "tool-end") {
      const s = open.get(e.callId);
      if (s) spans.push({ scope: s.scope, start: s.start, end: t });
    }
  }
  return spans.filter(
    (a) =>
      !spans.some(
        (b) =>
          b !== a &&
          b.scope === a.scope &&
          b.start <= a.start &&
          b.end >= a.end &&
          (b.start < a.start || b.end > a.end),
      ),
  );
}

function union(spans: readonly Span[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let total = 0;
  let curStart = Number.NEGATIVE_INFINITY;
  let curEnd = Number.NEGATIVE_INFINITY;
  for (const s of sorted) {
    if (s.start > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s.start;
      curEnd = s.end;
    } else curEnd = Math.max(curEnd, s.end);
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/** The lower bound in ms. */
export function criticalPathMs(events: readonly DossierEvent[]): number {
  const cuts = events.filter((e) => e.type === "phase").map((e) => Date.parse(e.ts));
  const spans = callSpans(events);
  const phaseOf = (t: number) => cuts.filter((c) => c <= t).length;
  const byPhase = new Map<number, Map<string, Span[]>>();
  for (const s of spans) {
    const p = phaseOf(s.start);
    if (!byPhase.has(p)) byPhase.set(p, new Map());
    const scopes = byPhase.get(p)!;
    scopes.set(s.scope, [...(scopes.get(s.scope) ?? []), s]);
  }
  let total = 0;
  for (const scopes of byPhase.values()) total += Math.max(0, ...[...scopes.values()].map(union));
  return total;
}
