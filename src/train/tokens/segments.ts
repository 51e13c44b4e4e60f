/**
 * A run's model calls as token sequences a trainer consumes (pure):
 *
 * - **Agents** are the calls of one scope and role (a call made inside a tool call — the page
 *   reader's summary — stands alone). An agent **appends** when some call of a later step
 *   begins with the token ids of an earlier step's call: its prompt ids, then its completion
 *   ids (smtl's conversation, minddr's appended searcher, mams' search agent). Repair rounds
 *   share their step, so a structured re-ask does not make an agent appending (warp, graph's
 *   roles rebuild the prompt every step).
 * - An appending agent gives **trajectory segments**: `prompt_ids` of the first call, then the
 *   completions concatenated with the tokens between them (the tool observations, the template's
 *   turn markers: `response_mask` 0), each next call's prompt checked to begin with the previous
 *   call's prompt and completion ids. A call that does not — a context reset, a summarised
 *   context, a rewritten message — ends the segment, and the next starts with `start: "break"`
 *   and where the prefix broke. A refused reply that the agent did not continue from (it
 *   re-sampled from the earlier state) is taken out of the segment and stands alone.
 * - Every call of an agent that rebuilds its prompt, and every call standing alone, is one
 *   (state, action) **call** unit: its prompt ids and its completion ids.
 *
 * Calls that failed, or have no ids, are left out (the caller names why).
 */

import type { RecordedCall } from "../recorded-call.ts";

/** A call with its ids. */
export interface TokenizedCall {
  call: RecordedCall;
  promptIds: readonly number[];
  completionIds: readonly number[];
  /** One per completion id; null when there are none (re-tokenized ids). */
  logprobs: readonly number[] | null;
  source: "server" | "retokenized";
  constrained: boolean;
}

/** Where a segment's prefix broke. */
export interface SegmentBreak {
  /** The call whose prompt and completion the segment's first call did not extend. */
  afterCallId: string;
  /** The first position (in that call's prompt + completion ids) where the ids differ. */
  atToken: number;
}

/** A token sequence: a trajectory segment or a single call. */
export interface TokenSegment {
  unit: "trajectory" | "call";
  /** The agent's scope and role. */
  scope: string | null;
  role: string;
  /** Trajectory units: the segment's index among its agent's segments (from 0); null for calls. */
  segment: number | null;
  /** Trajectory units: `first`, or `break` after a prefix break; null for calls. */
  start: "first" | "break" | null;
  break: SegmentBreak | null;
  calls: TokenizedCall[];
  promptIds: number[];
  responseIds: number[];
  /** 1: a token the model sampled; 0: a token between completions (observation, template). */
  responseMask: number[];
  /** `responseMask` with the tokens of refused replies set to 0. */
  lossMask: number[];
  /** The sampler's log-prob at model tokens, 0 elsewhere; null when a call has none. */
  responseLogprobs: number[] | null;
  /** Each call's completion as [start, end) in `responseIds`. */
  completionSpans: [number, number][];
}

/** True when `ids` begins with `prefix`. */
export function idsStartWith(ids: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > ids.length) return false;
  for (let i = 0; i < prefix.length; i++) if (ids[i] !== prefix[i]) return false;
  return true;
}

/** The first position where `a` and `b` differ (the shorter length when one begins the other). */
function firstDifference(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const tip = (c: TokenizedCall) => [...c.promptIds, ...c.completionIds];
const refused = (c: TokenizedCall) => c.call.formatErrors.length > 0;

/** One segment of consecutive calls (each extends the previous one's prompt and completion). */
function build(
  calls: TokenizedCall[],
  meta: Pick<TokenSegment, "unit" | "scope" | "role" | "segment" | "start" | "break">,
): TokenSegment {
  const first = calls[0]!;
  const responseIds: number[] = [];
  const responseMask: number[] = [];
  const lossMask: number[] = [];
  const withLogprobs = calls.every((c) => c.logprobs !== null);
  const logprobs: number[] = [];
  const completionSpans: [number, number][] = [];
  calls.forEach((c, k) => {
    if (k > 0) {
      const between = c.promptIds.slice(tip(calls[k - 1]!).length);
      responseIds.push(...between);
      for (const _ of between) {
        responseMask.push(0);
        lossMask.push(0);
        logprobs.push(0);
      }
    }
    const start = responseIds.length;
    responseIds.push(...c.completionIds);
    c.completionIds.forEach((_, i) => {
      responseMask.push(1);
      lossMask.push(refused(c) ? 0 : 1);
      logprobs.push(c.logprobs?.[i] ?? 0);
    });
    completionSpans.push([start, responseIds.length]);
  });
  return {
    ...meta,
    calls,
    promptIds: [...first.promptIds],
    responseIds,
    responseMask,
    lossMask,
    responseLogprobs: withLogprobs ? logprobs : null,
    completionSpans,
  };
}

/** The calls of `agent` kept before `c` when `c` continues it, or null for a break (see the module comment). */
function continuation(agent: readonly TokenizedCall[], c: TokenizedCall): number | null {
  const n = agent.length;
  if (idsStartWith(c.promptIds, tip(agent[n - 1]!))) return n;
  // Refused replies at the end that `c` was re-sampled in place of are dropped from the segment.
  for (let k = n - 1; k >= 0 && refused(agent[k]!); k--) {
    if (k === 0) return 0;
    if (idsStartWith(c.promptIds, tip(agent[k - 1]!))) return k;
  }
  return null;
}

/** True when some call of a later step begins with an earlier step's call's ids. */
function appends(calls: readonly TokenizedCall[]): boolean {
  return calls.some((c, i) =>
    calls.slice(0, i).some((e) => e.call.step < c.call.step && idsStartWith(c.promptIds, tip(e))),
  );
}

/** The token sequences of a run's tokenized calls, in the order of their first call. */
export function tokenSegments(calls: readonly TokenizedCall[]): TokenSegment[] {
  const out: { at: number; segment: TokenSegment }[] = [];
  const position = new Map(calls.map((c, i) => [c, i]));
  const single = (c: TokenizedCall) =>
    out.push({
      at: position.get(c)!,
      segment: build([c], {
        unit: "call",
        scope: c.call.scope ?? null,
        role: c.call.role,
        segment: null,
        start: null,
        break: null,
      }),
    });
  const agents = new Map<string, TokenizedCall[]>();
  for (const c of calls) {
    if (c.call.toolCallId) {
      single(c);
      continue;
    }
    const key = `${c.call.scope ?? ""}\u0000${c.call.role}`;
    agents.set(key, [...(agents.get(key) ?? []), c]);
  }
  for (const agent of agents.values()) {
    if (!appends(agent)) {
      for (const c of agent) single(c);
      continue;
    }
    let current: TokenizedCall[] = [];
    let index = 0;
    let start: "first" | "break" = "first";
    let broke: SegmentBreak | null = null;
    const close = () => {
      if (!current.length) return;
      const c = current[0]!;
      out.push({
        at: position.get(c)!,
        segment: build(current, {
          unit: "trajectory",
          scope: c.call.scope ?? null,
          role: c.call.role,
          segment: index++,
          start,
          break: broke,
        }),
      });
    };
    for (const c of agent) {
      if (!current.length) {
        current = [c];
        continue;
      }
      const kept = continuation(current, c);
      if (kept !== null) {
        for (const dropped of current.slice(kept)) single(dropped);
        current = [...current.slice(0, kept), c];
        continue;
      }
      const last = current.at(-1)!;
      close();
      start = "break";
      broke = { afterCallId: last.call.callId, atToken: firstDifference(c.promptIds, tip(last)) };
      current = [c];
    }
    close();
  }
  return out.sort((a, b) => a.at - b.at).map((o) => o.segment);
}
