/**
 * smtl's JSON protocol, what its two modes share (json-answer.ts, json-research.ts): the call over
 * the conversation, the decoding of a step (tool calls or the mode's answer), the step cap (tool-
 * calling steps), the context budget measured with the step's instructions, the reset to the
 * mode's message (after a forced refinement where the mode refines), and a refusal told to the
 * model with the next call.
 */

import { type Decoded, decoded, refused } from "../../kit/protocol/codec.ts";
import { describeCall, type SmtlCall } from "./protocol.ts";
import type { SmtlProtocol } from "./run.ts";
import { type LoopFigures, type SmtlOptions, SmtlState } from "./state.ts";
import { countMalformed, resetConversation } from "./turn.ts";

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

/** The JSON protocol's step cap: it counts tool-calling steps. */
const toolStepCap = (s: SmtlState): string | null => (s.figures.steps >= s.maxSteps ? "step-cap" : null);

/** True when the conversation, once framed, holds more than its first message and `size` tokens pass the budget. */
const pastContextBudget = (s: SmtlState, framed: boolean, size: () => number): boolean =>
  framed && s.talk.turns.length > 1 && size() > s.windows.contextTokens;

/** A refused JSON reply: counted against the error budget, its reason sent with the next call. */
function refuseJson(s: SmtlState, error: string, state: Record<string, unknown>): void {
  countMalformed(s, "malformed action", error.slice(0, 300), {
    state,
    answer: { error: error.slice(0, 600) },
  });
  s.talk.reject(error);
}

/** What a mode gives the JSON protocol; the rest of an {@link SmtlProtocol} is its own. */
export interface JsonMode<A>
  extends Omit<SmtlProtocol<A>, "start" | "limit" | "overContext" | "resetContext" | "refused"> {
  /** The first user message. */
  task(query: string): string;
  figures: (windows: SmtlState["windows"]) => LoopFigures;
  /** True once the plan (goals or subtasks) is given: no reset before it. */
  framed(s: SmtlState): boolean;
  /** The instructions of a step call, with its schema: what the context budget is measured with. */
  stepInstructions(s: SmtlState): string;
  /** The forced refinement before a reset, where the mode refines. */
  beforeReset?(s: SmtlState): Promise<void>;
  /** The message a reset leaves. */
  resetMessage(s: SmtlState): string;
  /** What a refused reply's trajectory step says the agent saw. */
  seen(s: SmtlState): Record<string, unknown>;
}

/** The JSON protocol of one mode. */
export function jsonProtocol<A>(mode: JsonMode<A>): SmtlProtocol<A> {
  const { task, figures, framed, stepInstructions, beforeReset, resetMessage, seen, ...rest } = mode;
  const size = (s: SmtlState) => s.talk.size(stepInstructions(s));
  return {
    ...rest,
    start: (ctx, options: SmtlOptions) => new SmtlState(ctx, options, { task: task(ctx.query), figures }),
    limit: toolStepCap,
    overContext: (s) => pastContextBudget(s, framed(s), () => size(s)),
    async resetContext(s) {
      const tokensBefore = size(s);
      await beforeReset?.(s);
      if (s.stopReason) return s.stopReason;
      resetConversation(s, resetMessage(s), tokensBefore, () => size(s));
      return null;
    },
    refused: (s, error) => refuseJson(s, error, seen(s)),
  };
}
