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
 * - a page crawl's fetch and read are part of it: the crawl's nominal cost is theirs; other calls
 *   of the step that overlap the crawl stay calls of their own.
 *
 * Ordering uses the log's sequence numbers, not timestamps, so ties cannot invent dependencies.
 * The calls and the dependency rule are the process metrics' (src/eval/process/timed-calls.ts),
 * which also walk the chain that really decided the run's end (critical-chain.ts).
 */

import type { DossierEvent } from "../src/core/events.ts";
import { dependencyRule, isUnitScope, type TimedCall, timedCalls } from "../src/eval/process/timed-calls.ts";

/** Nominal latencies of the world (ms). */
export interface Nominal {
  /** One model call. */
  llmMs: number;
  /** One search (`web_search`, `academic_search`). */
  searchMs: number;
  /** One page fetch or read (`fetch_page`, `crawl_page`). */
  pageMs: number;
}

/** The bound and the longest chain behind it. */
export interface CriticalPath {
  boundMs: number;
  /** For each call of the chain, the call before it on the chain (undefined for the first). */
  after: (c: TimedCall) => TimedCall | undefined;
  /** Calls on the longest chain (nested calls not counted apart). */
  depth: number;
  /** Model calls on the longest chain. */
  llmDepth: number;
  chain: TimedCall[];
}

/** What a call costs at nominal latencies: a crawl costs its fetch and its read; a cached or failed call nothing. */
export function nominalOf(c: TimedCall, nominal: Nominal): number {
  if (c.cached || !c.ok) return 0;
  if (c.kind === "llm") return nominal.llmMs;
  if (c.name === "crawl_page") return c.nested.reduce((n, x) => n + nominalOf(x, nominal), 0);
  if (c.name === "fetch_page") return nominal.pageMs;
  if (/search/.test(c.name) && c.name !== "local_search") return nominal.searchMs;
  return 0;
}

/**
 * The nominal-latency critical path of a run: over its calls (nested calls folded into their
 * crawl) and its dependency structure (src/eval/process/timed-calls.ts), the chain whose nominal
 * costs add up to the most.
 */
export function criticalPath(events: readonly DossierEvent[], nominal: Nominal): CriticalPath {
  const outer = timedCalls(events);
  const dependsOn = dependencyRule(events);
  const finish = new Map<TimedCall, number>();
  const via = new Map<TimedCall, TimedCall | undefined>();
  for (const [i, c] of outer.entries()) {
    let best = 0;
    let from: TimedCall | undefined;
    for (let j = 0; j < i; j++) {
      const d = outer[j]!;
      if (dependsOn(c, d) && finish.get(d)! > best) {
        best = finish.get(d)!;
        from = d;
      }
    }
    finish.set(c, best + nominalOf(c, nominal));
    via.set(c, from);
  }
  let last: TimedCall | undefined;
  for (const c of outer) if (!last || finish.get(c)! > finish.get(last)!) last = c;
  const chain: TimedCall[] = [];
  for (let c = last; c; c = via.get(c)) chain.unshift(c);
  return {
    boundMs: last ? finish.get(last)! : 0,
    after: (c) => via.get(c),
    depth: chain.length,
    llmDepth: chain.filter((c) => c.kind === "llm").length,
    chain,
  };
}

/** What an event of the log says, in a few words (`llm-end planner`, `phase outline`). */
function describe(e: DossierEvent): string {
  const x = e as unknown as Record<string, unknown>;
  const what = x.role ?? x.tool ?? x.phase ?? x.nodeId ?? x.kind ?? "";
  return `${e.type}${what ? ` ${what}` : ""}${e.scope ? `@${e.scope}` : ""}`;
}

/**
 * The chain of a run step by step, one line a call: its role or tool and scope, its nominal cost,
 * and what it waited for — the call before it on the chain and why it depends on it: a call of
 * its own scope, a main-line call issued after it, or a unit's call issued after the main line's
 * last word (named) that came after it.
 */
export function explainChain(
  events: readonly DossierEvent[],
  path: CriticalPath,
  nominal: Nominal,
): string[] {
  const mainLine = events.filter((e) => !isUnitScope(e.scope));
  const label = (c: TimedCall) =>
    `${c.kind === "llm" ? c.name : `${c.name}${c.nested.length ? `(${c.nested.map((n) => n.name).join("+")})` : ""}`}@${c.scope ?? "-"}`;
  let at = 0;
  return path.chain.map((c, i) => {
    const before = path.after(c);
    at += nominalOf(c, nominal);
    let why = "first";
    if (before) {
      if (before.scope === c.scope && before.endSeq < c.startSeq) why = "its scope's earlier call";
      else if (!isUnitScope(c.scope)) why = "main line: issued after it ended";
      else {
        const word = mainLine.findLast((e) => e.seq < c.startSeq);
        why = `unit issued after the main line's ${word ? describe(word) : "start"}`;
      }
    }
    return `${String(i + 1).padStart(3)}. ${label(c).padEnd(44)} +${String(nominalOf(c, nominal)).padStart(4)} =${String(at).padStart(6)} ms  after ${before ? label(before) : "-"} (${why})`;
  });
}
