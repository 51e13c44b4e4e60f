/**
 * The critical-path lower bound of a run, from its event log, at NOMINAL latencies: every call
 * costs what the world was told to charge for it (a model call, a search, a page), never what
 * it measured — so time spent waiting for a queue slot, retrying or on the CPU is waste the
 * bound does not contain.
 *
 * The dependency structure is the run's own:
 * - calls of one scope (one agent, one section writer) form a chain: a call depends on every
 *   call of its scope that ended before it was issued (calls of one step overlap, so they do
 *   not depend on each other);
 * - a call of the main line (no scope, or a role's scope such as `planner` or `outline`)
 *   depends on every call that ended before it was issued;
 * - a call of a parallel unit (scope `kind:id`: `search:T-2`, `section:1.2`) also depends on
 *   every call that had ended when the main line last spoke before the call was issued: the
 *   main line only moves on (emits a phase, a plan update, a decision) after what it awaited.
 *   A unit started late only because a queue held it back still depends only on what preceded
 *   the main line's last word, not on the units it queued behind;
 * - a page crawl's fetch and read (nested in its `crawl_page` span) are part of it: the crawl's
 *   nominal cost is theirs; other calls of the step that overlap the crawl stay calls of their own.
 *
 * Ordering uses the log's sequence numbers, not timestamps, so ties cannot invent dependencies.
 */

import type { DossierEvent } from "../src/core/events.ts";

/** Nominal latencies of the world (ms). */
export interface Nominal {
  /** One model call. */
  llmMs: number;
  /** One search (`web_search`, `academic_search`). */
  searchMs: number;
  /** One page fetch or read (`fetch_page`, `crawl_page`). */
  pageMs: number;
}

/** One call of the run. */
export interface Call {
  callId: string;
  kind: "llm" | "tool";
  /** Model role or tool name. */
  name: string;
  scope: string | undefined;
  startSeq: number;
  endSeq: number;
  start: number;
  end: number;
  /** Wait for a provider slot (ms). */
  queueMs: number;
  retries: number;
  cached: boolean;
  /** Nominal cost of this call alone, before nested calls are added. */
  nominalMs: number;
}

/** The calls of a run (model and tool), in issue order. */
export function calls(events: readonly DossierEvent[], nominal: Nominal): Call[] {
  const open = new Map<string, DossierEvent>();
  const out: Call[] = [];
  for (const e of events) {
    if (e.type === "llm-start" || e.type === "tool-start") open.set(e.callId, e);
    if (e.type !== "llm-end" && e.type !== "tool-end") continue;
    const s = open.get(e.callId);
    if (!s) continue;
    const base = {
      callId: e.callId,
      scope: s.scope,
      startSeq: s.seq,
      endSeq: e.seq,
      start: Date.parse(s.ts),
      end: Date.parse(e.ts),
    };
    if (e.type === "llm-end")
      out.push({
        ...base,
        kind: "llm",
        name: e.role,
        queueMs: 0,
        retries: e.retries,
        cached: e.replayed,
        nominalMs: e.replayed ? 0 : nominal.llmMs,
      });
    else {
      const search = /search/.test(e.tool) && e.tool !== "local_search";
      const page = e.tool === "fetch_page" || e.tool === "crawl_page";
      out.push({
        ...base,
        kind: "tool",
        name: e.tool,
        queueMs: e.queueMs ?? 0,
        retries: 0,
        cached: e.cached,
        nominalMs: e.cached || !e.ok ? 0 : search ? nominal.searchMs : page ? nominal.pageMs : 0,
      });
    }
  }
  return out.sort((a, b) => a.startSeq - b.startSeq);
}

/** A parallel unit's scope (`search:T-2`, `section:1.2`), as opposed to the main line's roles. */
const isUnit = (scope: string | undefined) => scope?.includes(":") ?? false;

/** A call a page crawl makes: its fetch and its read (other calls of a step may overlap a crawl). */
const partOfCrawl = (c: Call) =>
  (c.kind === "tool" && c.name === "fetch_page") || (c.kind === "llm" && c.name === "reader");

/** The bound and the longest chain behind it. */
export interface CriticalPath {
  boundMs: number;
  /** Calls on the longest chain (nested calls not counted apart). */
  depth: number;
  /** Model calls on the longest chain. */
  llmDepth: number;
  chain: Call[];
}

/** The nominal-latency critical path of a run. */
export function criticalPath(events: readonly DossierEvent[], nominal: Nominal): CriticalPath {
  const all = calls(events, nominal);
  // Nested calls fold into their outermost enclosing call of the same scope.
  // A call with nested calls costs what they cost (a crawl is its fetch and its read).
  const outer: Call[] = [];
  const nested = new Map<Call, number>();
  for (const c of all) {
    const parent = partOfCrawl(c)
      ? outer.findLast(
          (o) =>
            o.name === "crawl_page" && o.scope === c.scope && o.startSeq < c.startSeq && o.endSeq > c.endSeq,
        )
      : undefined;
    if (parent) nested.set(parent, (nested.get(parent) ?? 0) + c.nominalMs);
    else outer.push(c);
  }
  const cost = new Map(outer.map((c) => [c, nested.get(c) ?? c.nominalMs]));
  // The main line's words: events without a scope or in a role's scope (`planner`, `outline`);
  // scopes of parallel units are `kind:id` (`search:T-2`, `section:1.2`).
  const mainLine = events.filter((e) => !isUnit(e.scope)).map((e) => e.seq);
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
  const finish = new Map<Call, number>();
  const via = new Map<Call, Call | undefined>();
  for (const c of outer) {
    const barrier = isUnit(c.scope) ? lastWordBefore(c.startSeq) : c.startSeq;
    let best = 0;
    let from: Call | undefined;
    for (const d of outer) {
      if (d.startSeq >= c.startSeq) break;
      const dependsOn = d.endSeq < barrier || (d.scope === c.scope && d.endSeq < c.startSeq);
      if (dependsOn && finish.get(d)! > best) {
        best = finish.get(d)!;
        from = d;
      }
    }
    finish.set(c, best + cost.get(c)!);
    via.set(c, from);
  }
  let last: Call | undefined;
  for (const c of outer) if (!last || finish.get(c)! > finish.get(last)!) last = c;
  const chain: Call[] = [];
  for (let c = last; c; c = via.get(c)) chain.unshift(c);
  return {
    boundMs: last ? finish.get(last)! : 0,
    depth: chain.length,
    llmDepth: chain.filter((c) => c.kind === "llm").length,
    chain,
  };
}
