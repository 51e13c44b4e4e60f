/**
 * The smtl loop (seed: SMTL §3 and Algorithm 1; §6.1 for the context; App. D.1 for deep
 * research): one loop for both modes — a short verified answer (`answer`) and a cited report over
 * subtasks (`research`) — and both protocols, plugged in as an {@link SmtlProtocol}: JSON for any
 * model (json-answer.ts, json-research.ts) and SMTL's own tags for its checkpoints (tags.ts).
 *
 * 1. Plan first: no tool runs before the plan (goals with fallback paths, or the subtasks).
 * 2. Parallel steps: each reply issues several tool calls that run at once (steps.ts).
 * 3. Every `refineEvery` steps the plan is refined (a refinement call, or the request for a
 *    `<summary>`).
 * 4. At the context budget (windows.ts) a forced refinement, then a reset of the conversation
 *    to the task and the refreshed plan.
 * 5. The loop ends at the answer (or the last subtask's), at the step cap, when the error
 *    budget for refused replies is spent, or at a budget limit; the mode's final step follows
 *    (the protocol's `finish`: the verified answer, an answer or report from what was gathered).
 *
 * Every reply goes through the protocol's codec (src/kit/protocol): a refused reply is the
 * call's recorded format error, counted against the error budget, then told to the model (JSON)
 * or sampled again (tags).
 */

import { startIteration } from "../../kit/exploration-budget.ts";
import type { Codec } from "../../kit/protocol/codec.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ResearchOutcome } from "../types.ts";
import type { SmtlOptions, SmtlState } from "./state.ts";
import { sampleReply } from "./turn.ts";

/** One protocol of smtl in one mode: its codecs and what each decoded reply does. */
export interface SmtlProtocol<A> {
  /** The state of a new run: its first message and the figures it keeps. */
  start(ctx: RunContext, options: SmtlOptions): SmtlState;
  /** Why the loop stops before the next reply (the step cap), or null. */
  limit(s: SmtlState): string | null;
  /** True when the conversation is past the context budget. */
  overContext(s: SmtlState): boolean;
  /** The forced refinement and the reset (§6.1); the stop reason when the loop must end. */
  resetContext(s: SmtlState): Promise<string | null>;
  /** The codec of the next reply. */
  codec(s: SmtlState): Codec<SmtlState, A>;
  /** A refused reply: counted against the error budget, then told or sampled again. */
  refused(s: SmtlState, error: string, raw: string): void;
  /** Acts on a reply (plan, parallel calls, summary, answer); true when a tool step ran. */
  act(s: SmtlState, action: A, raw: string): Promise<boolean>;
  /** The periodic refinement, after a tool step: true when one is due. */
  refineDue(s: SmtlState): boolean;
  refine(s: SmtlState): Promise<void>;
  /** True when the loop has its answer (or every subtask's). */
  done(s: SmtlState): boolean;
  /** The mode's final step: the outcome of the run. */
  finish(s: SmtlState): Promise<ResearchOutcome>;
}

/** Runs the loop of `protocol` until it ends; the state holds why. */
export async function smtlLoop<A>(s: SmtlState, protocol: SmtlProtocol<A>): Promise<void> {
  s.ctx.emit({ type: "phase", phase: "planning" });
  while (!protocol.done(s) && !s.stopReason) {
    if (s.stop(protocol.limit(s)) || s.stop(s.guard())) break;
    if (protocol.overContext(s) && s.stop(await protocol.resetContext(s))) break;
    if (s.stop(startIteration(s.ctx))) break;
    const reply = await sampleReply(s, protocol.codec(s));
    if (reply.kind === "stop") {
      s.stop(reply.reason);
      break;
    }
    if (reply.kind === "refused") {
      protocol.refused(s, reply.error, reply.raw);
      continue;
    }
    const stepped = await protocol.act(s, reply.action, reply.raw);
    if (stepped && protocol.refineDue(s)) await protocol.refine(s);
  }
}

/** Runs smtl with `protocol` in the run's `smtl` scope: the loop, then the mode's final step. */
export function runSmtlLoop<A>(
  ctx: RunContext,
  options: SmtlOptions,
  protocol: SmtlProtocol<A>,
): Promise<ResearchOutcome> {
  return ctx.inScope("smtl", async () => {
    const state = protocol.start(ctx, options);
    await smtlLoop(state, protocol);
    return protocol.finish(state);
  });
}
