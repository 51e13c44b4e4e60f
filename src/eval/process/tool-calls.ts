/**
 * Tool calls as the event log records them: each tool-start joined with its tool-end, fallback
 * attempts (the same request re-sent to the next provider after a failure) marked, and calls
 * grouped into agent steps.
 */

import type { DossierEvent, EventOf } from "../../core/events.ts";

/** One tool call attempt. */
export interface ToolCallRecord {
  callId: string;
  tool: string;
  provider: string | null;
  args: unknown;
  /** The scope the call ran in ("" when the log has none). */
  scope: string;
  /** The tool-end's verdict; null when the call never ended. */
  ok: boolean | null;
  cached: boolean;
  /** True when this attempt re-sends a failed request to a fallback provider. */
  fallback: boolean;
  /** 0-based index of the agent step the call belongs to. */
  step: number;
}

/** A scope tag of an event. */
export function scopeOf(event: DossierEvent): string {
  return (event as { scope?: string }).scope ?? "";
}

/**
 * Joins tool-start and tool-end events and groups calls into steps: within a scope, the tool
 * calls between two model calls form one step. Also counts reflection turns: model calls that
 * read tool results produced in their scope since the scope's previous model call.
 *
 * A page crawl's own fetch and read (a `fetch_page` call and a `reader` model call made while a
 * `crawl_page` of the same scope is open) are part of that crawl: they are neither requests of
 * their own nor the model turn that ends a step.
 */
export function toolCallRecords(events: readonly DossierEvent[]): {
  calls: ToolCallRecord[];
  steps: number;
  reflectionTurns: number;
} {
  const ends = new Map<string, EventOf<"tool-end">>();
  for (const e of events) if (e.type === "tool-end") ends.set(e.callId, e);
  const calls: ToolCallRecord[] = [];
  const openStep = new Map<string, number>();
  const resultsSinceModel = new Map<string, number>();
  /** Failed calls (in order of failure) that no fallback attempt has followed yet. */
  const failedUnconsumed: ToolCallRecord[] = [];
  const byId = new Map<string, ToolCallRecord>();
  let steps = 0;
  let reflectionTurns = 0;
  const crawling = new Map<string, Set<string>>();
  const nested = new Set<string>();
  const inCrawl = (scope: string) => (crawling.get(scope)?.size ?? 0) > 0;
  for (const e of events) {
    const scope = scopeOf(e);
    if (
      (e.type === "llm-start" && e.role === "reader" && inCrawl(scope)) ||
      (e.type === "tool-start" && e.tool === "fetch_page" && inCrawl(scope))
    ) {
      nested.add(e.callId);
      continue;
    }
    if ((e.type === "tool-end" || e.type === "llm-end") && nested.has(e.callId)) continue;
    if (e.type === "tool-start" && e.tool === "crawl_page") {
      crawling.set(scope, (crawling.get(scope) ?? new Set()).add(e.callId));
    } else if (e.type === "tool-end" && e.tool === "crawl_page") {
      crawling.get(scope)?.delete(e.callId);
    }
    if (e.type === "llm-start") {
      openStep.delete(scope);
      if ((resultsSinceModel.get(scope) ?? 0) > 0) reflectionTurns++;
      resultsSinceModel.set(scope, 0);
    } else if (e.type === "tool-end") {
      resultsSinceModel.set(scope, (resultsSinceModel.get(scope) ?? 0) + 1);
      const record = byId.get(e.callId);
      if (record && !e.ok) failedUnconsumed.push(record);
    } else if (e.type === "tool-start") {
      let step = openStep.get(scope);
      if (step === undefined) {
        step = steps++;
        openStep.set(scope, step);
      }
      const end = ends.get(e.callId);
      const argsKey = JSON.stringify(e.args ?? null);
      const previous = failedUnconsumed.findIndex(
        (c) =>
          c.tool === e.tool &&
          c.provider !== (e.provider ?? null) &&
          JSON.stringify(c.args ?? null) === argsKey,
      );
      if (previous >= 0) failedUnconsumed.splice(previous, 1);
      const record: ToolCallRecord = {
        callId: e.callId,
        tool: e.tool,
        provider: e.provider ?? null,
        args: e.args,
        scope,
        ok: end ? end.ok : null,
        cached: end?.cached ?? false,
        fallback: previous >= 0,
        step,
      };
      byId.set(e.callId, record);
      calls.push(record);
    }
  }
  return { calls, steps, reflectionTurns };
}

/** The search queries of a call's arguments (`query`, or each of `queries`). */
export function queriesOf(args: unknown): string[] {
  if (args === null || typeof args !== "object") return [];
  const record = args as Record<string, unknown>;
  if (typeof record.query === "string") return [record.query];
  if (Array.isArray(record.queries)) return record.queries.filter((q): q is string => typeof q === "string");
  return [];
}

/** A query compared for repetition: lower case, punctuation dropped, spaces collapsed. */
export function normalizeQuery(query: string): string {
  return query
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}
