/**
 * One reply of the smtl agent, and what a refused one costs: the call through the protocol's
 * codec (its refusals are the call's recorded format errors), a failed call as the loop's stop
 * reason, and the count against the error budget.
 */

import type { Codec } from "../../kit/protocol/codec.ts";
import { type Sampled, sampleAction, stopOf } from "../../kit/protocol/sample.ts";
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

/**
 * One refinement call (forced before a reset, else periodic): a `refining` phase, the reply
 * through `codec`, and what a failure costs — a failed call is the loop's stop reason; a refused
 * reply a `REFINE_FALLBACK` warning (`what` names it) counted against the error budget, the
 * state kept. The accepted value and its raw reply, or null.
 */
export async function sampleRefinement<A>(
  s: SmtlState,
  codec: Codec<SmtlState, A>,
  forced: boolean,
  what: string,
): Promise<{ action: A; raw: string } | null> {
  s.ctx.emit({
    type: "phase",
    phase: "refining",
    detail: `step ${s.figures.steps}${forced ? " (context budget)" : ""}`,
  });
  const r = await sampleReply(s, codec);
  if (r.kind === "stop") {
    s.stopReason = r.reason;
    return null;
  }
  if (r.kind === "refused") {
    s.ctx.emit({
      type: "warning",
      code: "REFINE_FALLBACK",
      message: `${what} failed: ${r.error.slice(0, 200)}`,
    });
    s.figures.malformedActions++;
    s.talk.clearRejection();
    if (s.figures.malformedActions >= s.errorBudget) s.stopReason = "error-budget";
    return null;
  }
  return { action: r.action, raw: r.raw };
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
