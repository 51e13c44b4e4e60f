/**
 * Where a run's wall time went, from its event log: the chain of calls that decided when the run
 * ended, walked back from its end — each call's predecessor is the call it depended on (by the
 * run's dependency structure, timed-calls.ts) that was answered last — and every millisecond of
 * the wall time on that chain put to one cause:
 * - the calls being answered (their service time);
 * - waits for a limiter slot, per limiter (`model:<provider>`, `web_search/searxng`,
 *   `fetch_page/http`, `crawl_page/reader`…);
 * - retries: failed attempts and their backoff;
 * - gaps between a call and the next call of the chain while other calls were in flight (the
 *   next call was held back: a queue of the engine's, or the engine busy with other work);
 * - gaps with no call in flight at all (the engine's own work between calls), by the code step —
 *   the run's phase, the call before and the call after.
 * The parts add up to the wall time.
 */

import type { DossierEvent } from "../../core/events.ts";
import { dependencyRule, lastAttempt, type TimedCall, timedCalls } from "./timed-calls.ts";

/** One call of the chain and the time before it. */
export interface ChainLink {
  call: TimedCall;
  /** The code step before it: `<phase>: <call before> → <this call>`. */
  step: string;
  /** The gap before it (since the previous link's answer, or the run's start): behind other calls. */
  heldMs: number;
  /** The gap before it with no call in flight. */
  idleMs: number;
  /** Its waits for limiter slots (a crawl's include its fetch's), by limiter. */
  waits: Record<string, number>;
  retryMs: number;
  /** Its time answering (less waits and retries). */
  serviceMs: number;
}

/** Idle time between calls of the chain at one code step. */
export interface IdleStep {
  /** `<phase>: <call before> → <call after>` (`start` and `end` at the run's ends). */
  step: string;
  ms: number;
  gaps: number;
}

/** The wall time of a run, cause by cause. */
export interface ChainBreakdown {
  wallMs: number;
  /** Calls on the chain, and model calls among them. */
  calls: number;
  llmCalls: number;
  serviceMs: number;
  /** Waits for limiter slots on the chain, by limiter. */
  waits: Record<string, number>;
  retryMs: number;
  /** Gaps on the chain while other calls were in flight. */
  heldMs: number;
  /** Gaps on the chain with no call in flight (the engine's own work), … */
  idleMs: number;
  /** … by code step, longest first. */
  idleSteps: IdleStep[];
  links: ChainLink[];
}

/** Measure of [a, b] covered by the sorted, disjoint intervals `busy`. */
function covered(busy: readonly [number, number][], a: number, b: number): number {
  let n = 0;
  for (const [s, e] of busy) {
    if (s >= b) break;
    if (e > a) n += Math.min(b, e) - Math.max(a, s);
  }
  return n;
}

/** The union of the calls' spans, sorted and disjoint. */
function inFlight(calls: readonly TimedCall[]): [number, number][] {
  const spans = calls.map((c) => [c.start, c.end] as [number, number]).sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [s, e] of spans) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** The phase in force before event `seq`. */
function phaseAt(events: readonly DossierEvent[]): (seq: number) => string {
  const phases = events.filter((e) => e.type === "phase") as { seq: number; phase: string }[];
  return (seq) => phases.findLast((p) => p.seq < seq)?.phase ?? "start";
}

const add = (into: Record<string, number>, key: string, ms: number) => {
  if (ms > 0) into[key] = (into[key] ?? 0) + ms;
};

/** The chain that decided a run's end and its wall time cause by cause; null while the run has not ended. */
export function criticalChain(log: readonly DossierEvent[]): ChainBreakdown | null {
  const events = lastAttempt(log);
  const runStart = events.find((e) => e.type === "run-start" || e.type === "run-resume");
  const runEnd = events.findLast((e) => e.type === "run-end");
  if (!runStart || !runEnd) return null;
  const begin = Date.parse(runStart.ts);
  const finish = Date.parse(runEnd.ts);
  const calls = timedCalls(events);
  const dependsOn = dependencyRule(events);
  // Each call's predecessor: the dependency answered last.
  const before = new Map<TimedCall, TimedCall | undefined>();
  for (const [i, c] of calls.entries()) {
    let best: TimedCall | undefined;
    for (let j = 0; j < i; j++) {
      const d = calls[j]!;
      if (dependsOn(c, d) && (!best || d.end > best.end || (d.end === best.end && d.endSeq > best.endSeq)))
        best = d;
    }
    before.set(c, best);
  }
  let last: TimedCall | undefined;
  for (const c of calls)
    if (!last || c.end > last.end || (c.end === last.end && c.endSeq > last.endSeq)) last = c;
  const chain: TimedCall[] = [];
  for (let c = last; c; c = before.get(c)) chain.unshift(c);

  const busy = inFlight(calls);
  const phase = phaseAt(events);
  const idleSteps = new Map<string, IdleStep>();
  const gap = (from: number, to: number, step: string) => {
    const a = Math.max(begin, from);
    const b = Math.min(finish, Math.max(a, to));
    const held = covered(busy, a, b);
    const idle = b - a - held;
    if (idle > 0) {
      const s = idleSteps.get(step) ?? { step, ms: 0, gaps: 0 };
      s.ms += idle;
      s.gaps++;
      idleSteps.set(step, s);
    }
    return { heldMs: held, idleMs: idle };
  };
  const links: ChainLink[] = [];
  let previous: TimedCall | undefined;
  for (const call of chain) {
    const step = `${phase(call.startSeq)}: ${previous?.name ?? "start"} → ${call.name}`;
    const g = gap(previous?.end ?? begin, call.start, step);
    const duration = Math.max(
      0,
      Math.min(finish, call.end) - Math.max(begin, call.start, previous?.end ?? begin),
    );
    const waits: Record<string, number> = {};
    add(waits, call.limiter, call.queueMs);
    for (const n of call.nested) add(waits, n.limiter, n.queueMs);
    const waitMs = Math.min(
      duration,
      Object.values(waits).reduce((s, x) => s + x, 0),
    );
    // A call that overlaps its predecessor (ms timestamps) counts its waits only up to its own time.
    if (waitMs < Object.values(waits).reduce((s, x) => s + x, 0)) scaleTo(waits, waitMs);
    const nestedRetry = call.nested.reduce((s, n) => s + n.retryMs, 0);
    const retryMs = Math.min(duration - waitMs, call.retryMs + nestedRetry);
    links.push({ call, step, ...g, waits, retryMs, serviceMs: duration - waitMs - retryMs });
    previous = call;
  }
  const tail = gap(
    previous?.end ?? begin,
    finish,
    `${phase(runEnd.seq)}: ${previous?.name ?? "start"} → end`,
  );
  const waits: Record<string, number> = {};
  for (const l of links) for (const [k, v] of Object.entries(l.waits)) add(waits, k, v);
  const sum = (f: (l: ChainLink) => number) => links.reduce((s, l) => s + f(l), 0);
  return {
    wallMs: finish - begin,
    calls: chain.length,
    llmCalls: chain.filter((c) => c.kind === "llm").length,
    serviceMs: sum((l) => l.serviceMs),
    waits,
    retryMs: sum((l) => l.retryMs),
    heldMs: sum((l) => l.heldMs) + tail.heldMs,
    idleMs: sum((l) => l.idleMs) + tail.idleMs,
    idleSteps: [...idleSteps.values()].sort((a, b) => b.ms - a.ms || a.step.localeCompare(b.step)),
    links,
  };
}

/** Scales the waits down to `total` in all (rounded, in proportion). */
function scaleTo(waits: Record<string, number>, total: number): void {
  const sum = Object.values(waits).reduce((s, x) => s + x, 0);
  let left = total;
  const keys = Object.keys(waits);
  keys.forEach((k, i) => {
    const v = i === keys.length - 1 ? left : Math.round((waits[k]! * total) / sum);
    waits[k] = v;
    left -= v;
  });
  for (const k of keys) if (waits[k]! <= 0) delete waits[k];
}
