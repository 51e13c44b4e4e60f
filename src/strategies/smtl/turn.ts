/**
 * One reply of the smtl agent, and what a refused one costs: the call through the protocol's
 * codec (its refusals are the call's recorded format errors), a failed call as the loop's stop
 * reason, and the count against the error budget.
 */

import { type Codec, type Decoded, decoded, refused } from "../../kit/protocol/codec.ts";
import { type Sampled, sampleAction, stopOf } from "../../kit/protocol/sample.ts";
import { describeCall, type SmtlCall } from "./protocol.ts";
import type { SmtlState } from "./state.ts";

/** A reply: decoded, refused, or a reason to stop (a budget limit, a failed call). */
export type Reply<A> = Sampled<A> | { kind: "stop"; reason: string };

/** Samples the next reply through `codec`; counts the model turn. */
export async function sampleReply<A>(s: SmtlState, codec: Codec<SmtlState, A>): Promise<Reply<A>> {
  s.figures.modelTurns++;
  try {
    return await sampleAction(s.ctx, codec, s);
  } catch (error) {
    return { kind: "stop", reason: stopOf(s.ctx, error, "SMTL_STEP_FAILED") };
  }
}

/**
 * Counts a refused reply against the error budget: a `MALFORMED_ACTION` warning (`what` names
 * the unit, `malformed action` or `malformed reply`) and a `malformed` trajectory step; the loop
 * stops (`error-budget`) when the budget is spent.
 */
export function countMalformed(
  s: SmtlState,
  what: string,
  problem: string,
  trajectory: { state: Record<string, unknown>; answer: unknown },
): void {
  s.figures.malformedActions++;
  s.ctx.emit({
    type: "warning",
    code: "MALFORMED_ACTION",
    message: `${what} ${s.figures.malformedActions} of ${s.errorBudget}: ${problem}`,
  });
  s.record("malformed", trajectory.state, trajectory.answer);
  if (s.figures.malformedActions >= s.errorBudget) s.stopReason = "error-budget";
}

/** A JSON call over the conversation: the user's sampling, `extra` after the last message. */
export function jsonRequest<V>(s: SmtlState, system: string, schema: V, extra = "") {
  return {
    role: "searcher" as const,
    system,
    messages: s.talk.messages(extra),
    maxOutputTokens: 4096,
    ...s.talk.sampling,
    schema,
  };
}

/**
 * A JSON step's reply: its answer when `check` accepts it, or its calls when some were not made
 * before; refused when it holds both, neither, or only repeated calls.
 */
export function decodeStep<T, A>(
  s: SmtlState,
  reply: { calls: SmtlCall[]; answer?: T | null | undefined },
  rules: { both: string; neither: string; check: (answer: T) => string | null },
  make: { answer: (answer: T) => A; calls: () => A },
): Decoded<A> {
  const { calls, answer } = reply;
  if (answer && calls.length > 0) return refused(rules.both);
  if (answer) {
    const problem = rules.check(answer);
    return problem ? refused(problem) : decoded(make.answer(answer));
  }
  if (calls.length === 0) return refused(rules.neither);
  if (s.steps.fresh(calls).length === 0)
    return refused(
      `every call repeats one already made: ${calls.map(describeCall).join("; ").slice(0, 300)}`,
    );
  return decoded(make.calls());
}

/** Resets the conversation to `message` and records the reset (`tokensAfter` from `size`). */
export function resetConversation(
  s: SmtlState,
  message: string,
  tokensBefore: number,
  size: () => number,
): void {
  const droppedTurns = s.talk.reset(message);
  s.figures.contextResets++;
  s.ctx.emit({
    type: "context-reset",
    step: s.figures.steps,
    droppedTurns,
    tokensBefore,
    tokensAfter: size(),
  });
}

/** The JSON protocol's step cap: it counts tool-calling steps. */
export const toolStepCap = (s: SmtlState): string | null =>
  s.figures.steps >= s.maxSteps ? "step-cap" : null;

/** True when the conversation, once framed, holds more than its first message and `size` tokens pass the budget. */
export const pastContextBudget = (s: SmtlState, framed: boolean, size: () => number): boolean =>
  framed && s.talk.turns.length > 1 && size() > s.windows.contextTokens;

/** A refused JSON reply: counted against the error budget, its reason sent with the next call. */
export function refuseJson(s: SmtlState, error: string, state: Record<string, unknown>): void {
  countMalformed(s, "malformed action", error.slice(0, 300), {
    state,
    answer: { error: error.slice(0, 600) },
  });
  s.talk.reject(error);
}
