/**
 * A run's calls with their timing, from its event log: each model call (llm-start … llm-end) and
 * tool call (tool-start … tool-end) with when it was issued and answered, the time it waited for
 * a limiter slot (`queueMs`), the time its failed attempts and backoff took, and the calls nested
 * in it — a page crawl's own fetch and read are part of the crawl.
 */

import type { DossierEvent, EventOf } from "../../core/events.ts";

/** One call of a run. */
export interface TimedCall {
  callId: string;
  kind: "llm" | "tool";
  /** Model role or tool name. */
  name: string;
  /** The limiter the call waits for: `model:<provider>`, or `<tool>/<provider>` for a tool. */
  limiter: string;
  scope: string | undefined;
  startSeq: number;
  endSeq: number;
  /** Issued (ms since the epoch). */
  start: number;
  /** Answered (ms since the epoch). */
  end: number;
  /** Wait for a limiter slot (ms). */
  queueMs: number;
  /** Failed attempts and the backoff before the last attempt (ms); a failed call's whole time. */
  retryMs: number;
  ok: boolean;
  /** A cached tool result, or a model answer replayed from the journal: no provider was asked. */
  cached: boolean;
  /** Calls made inside this one (a crawl's fetch and read). */
  nested: TimedCall[];
}

/** A unit's scope (`search:T-2`, `section:1.2`), as opposed to the main line's roles (`planner`). */
export const isUnitScope = (scope: string | undefined): boolean => scope?.includes(":") ?? false;

/** The provider part of a model name (`openai-compatible:m` → `openai-compatible`). */
const modelProvider = (model: string) => (model.includes(":") ? model.slice(0, model.indexOf(":")) : model);

/**
 * The crawl a page fetch or a page read belongs to: the one it names (`parentCallId` on its
 * tool-start or llm-start). Logs written before calls named it: among the crawls of its scope
 * under way around it, a fetch's is the latest without a fetch, a read's the one whose fetch was
 * answered last before it (several crawls of one step run at once), else the latest without one.
 */
function crawlOf(
  c: TimedCall,
  parentId: string | undefined,
  outer: readonly TimedCall[],
): TimedCall | undefined {
  const isFetch = c.kind === "tool" && c.name === "fetch_page";
  const isRead = c.kind === "llm" && c.name === "reader";
  if (!isFetch && !isRead) return undefined;
  if (parentId) return outer.find((o) => o.callId === parentId && o.name === "crawl_page");
  const enclosing = outer.filter(
    (o) => o.name === "crawl_page" && o.scope === c.scope && o.startSeq < c.startSeq && o.endSeq > c.endSeq,
  );
  const has = (o: TimedCall, kind: "fetch" | "read") =>
    o.nested.some((n) => (kind === "fetch" ? n.name === "fetch_page" : n.name === "reader"));
  if (isFetch) return enclosing.findLast((o) => !has(o, "fetch")) ?? enclosing.at(-1);
  const fetched = (o: TimedCall) =>
    Math.max(
      -1,
      ...o.nested.filter((n) => n.name === "fetch_page" && n.endSeq < c.startSeq).map((n) => n.endSeq),
    );
  const open = enclosing.filter((o) => !has(o, "read"));
  const best = open.reduce<TimedCall | undefined>(
    (b, o) => (!b || fetched(o) > fetched(b) ? o : b),
    undefined,
  );
  return best ?? enclosing.at(-1);
}

/** The events of the last attempt of a run (a resumed run restarts its clock). */
export function lastAttempt(events: readonly DossierEvent[]): readonly DossierEvent[] {
  const start = events.findLastIndex((e) => e.type === "run-start" || e.type === "run-resume");
  return start > 0 ? events.slice(start) : events;
}

/** Every ended call, outermost first by issue order; calls nested in a crawl are in its `nested`. */
export function timedCalls(events: readonly DossierEvent[]): TimedCall[] {
  const starts = new Map<string, DossierEvent>();
  const parents = new Map<string, string>();
  const retries = new Map<string, EventOf<"llm-retry">>();
  const all: TimedCall[] = [];
  for (const e of events) {
    if (e.type === "llm-start" || e.type === "tool-start") {
      starts.set(e.callId, e);
      if (e.parentCallId) parents.set(e.callId, e.parentCallId);
    } else if (e.type === "llm-retry") retries.set(e.callId, e);
    else if (e.type === "llm-end" || e.type === "tool-end") {
      const s = starts.get(e.callId);
      if (!s) continue;
      const start = Date.parse(s.ts);
      const end = Date.parse(e.ts);
      const duration = Math.max(0, end - start);
      const queueMs = Math.min(duration, (e as { queueMs?: number }).queueMs ?? 0);
      const retry = retries.get(e.callId);
      const retried = retry ? Date.parse(retry.ts) + retry.delayMs - start : 0;
      const retryMs = e.ok ? Math.max(0, Math.min(duration - queueMs, retried)) : duration - queueMs;
      all.push({
        callId: e.callId,
        kind: e.type === "llm-end" ? "llm" : "tool",
        name: e.type === "llm-end" ? e.role : e.tool,
        limiter: e.type === "llm-end" ? `model:${modelProvider(e.model)}` : `${e.tool}/${e.provider ?? "-"}`,
        scope: s.scope,
        startSeq: s.seq,
        endSeq: e.seq,
        start,
        end,
        queueMs,
        retryMs,
        ok: e.ok,
        cached: e.type === "llm-end" ? e.replayed : e.cached,
        nested: [],
      });
    }
  }
  all.sort((a, b) => a.startSeq - b.startSeq);
  const outer: TimedCall[] = [];
  for (const c of all) {
    const parent = crawlOf(c, parents.get(c.callId), outer);
    if (parent) parent.nested.push(c);
    else outer.push(c);
  }
  return outer;
}

/**
 * What `calls[i]` waited for by the run's dependency structure: calls of its scope that ended
 * before it was issued, and — for a call of the main line, every call that had ended; for a
 * unit's call, every call that had ended when the main line last spoke before it was issued
 * (the main line moves on only after what it awaited). Ordered by sequence numbers, so ties of
 * timestamps invent no dependency.
 */
export function dependencyRule(events: readonly DossierEvent[]): (call: TimedCall, on: TimedCall) => boolean {
  const mainLine = events.filter((e) => !isUnitScope(e.scope)).map((e) => e.seq);
  const lastWordBefore = (seq: number): number => {
    let lo = 0;
    let hi = mainLine.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (mainLine[mid]! < seq) {
        found = mainLine[mid]!;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  const barriers = new Map<TimedCall, number>();
  return (call, on) => {
    if (on.startSeq >= call.startSeq) return false;
    let barrier = barriers.get(call);
    if (barrier === undefined) {
      barrier = isUnitScope(call.scope) ? lastWordBefore(call.startSeq) : call.startSeq;
      barriers.set(call, barrier);
    }
    return on.endSeq < barrier || (on.scope === call.scope && on.endSeq < call.startSeq);
  };
}
