/**
 * SMTL's own tag protocol (`protocol: "native"`, for the released checkpoints; seed: SMTL's
 * inference loop), in either mode — they differ only in their prompts (tags-modes.ts) and in
 * what the `<answer>` holds. One growing conversation; each reply is sampled at the seed's
 * temperature 1.0 and top-p 0.9 with up to 8,192 output tokens unless the options set them.
 *
 * - A reply that is empty, has an unbalanced tag, does not end with a closing tag, or holds
 *   neither calls, an answer, nor exactly one `<plan>` or `<summary>` is refused: counted against
 *   the error budget and sampled again from the same conversation (never added to it).
 * - `<tool_call>` blocks (1–5, at most 10 run) run at once; their results return as one message of
 *   `<tool_response>` blocks; every `refineEvery`-th reply that message ends with the request
 *   for a `<summary>`. A reply with only `<plan>` or `<summary>` is followed by the message to go on.
 * - At the context budget the model is asked for a summary, and the conversation is reset to the
 *   task and that summary.
 * - `<answer>` ends the loop; before the first tool call it is sent back once with the kit's
 *   NO_CALL_YET line. The step cap counts replies, as in the seed.
 */

import type { TextCodec } from "../../kit/protocol/codec.ts";
import { NO_CALL_YET } from "../../kit/research-done.ts";
import type { SmtlFigures } from "./answer.ts";
import { NATIVE_MAX_OUTPUT_TOKENS, NATIVE_SAMPLING } from "./native-format.ts";
import { CONTINUE_MESSAGE, SUMMARY_NUDGE } from "./native-prompts.ts";
import type { SmtlProtocol } from "./run.ts";
import { answerFigures, SmtlState } from "./state.ts";
import { runTagCalls } from "./tags-calls.ts";
import { decodeSummaryReply, decodeTagReply, noteAction, planText, type TagAction } from "./tags-decode.ts";
import { type TagMode, tagMode } from "./tags-modes.ts";
import { countMalformed, resetConversation, sampleReply } from "./turn.ts";

/** The sampling of a run: the user's over the seed's. */
export const tagSampling = (s: SmtlState) => ({
  temperature: s.options.temperature ?? NATIVE_SAMPLING.temperature,
  topP: s.options.topP ?? NATIVE_SAMPLING.topP,
});

function request(s: SmtlState, mode: TagMode, extra = "") {
  return {
    role: "searcher" as const,
    system: mode.system,
    messages: s.talk.messages(extra),
    ...tagSampling(s),
    maxOutputTokens: NATIVE_MAX_OUTPUT_TOKENS,
  };
}

/** A step's reply: tool calls, the answer, the plan or a summary. */
function stepCodec(mode: TagMode): TextCodec<SmtlState, TagAction> {
  return {
    kind: "text",
    name: "smtl-tags",
    request: (s) => request(s, mode),
    decode: (reply, s) => decodeTagReply(reply, mode, s.tools),
  };
}

/** The summary asked for at the context budget (the request rides with the last message only). */
function summaryCodec(mode: TagMode): TextCodec<SmtlState, string> {
  return {
    kind: "text",
    name: "smtl-tags",
    request: (s) => request(s, mode, SUMMARY_NUDGE),
    decode: (reply) => decodeSummaryReply(reply, mode),
  };
}

const seen = (s: SmtlState, extra: Record<string, unknown> = {}) => ({
  turn: s.replies,
  observations: s.steps.lastObserved,
  ...extra,
});

/** Counts a malformed reply; the conversation stays as it was, so the step is sampled again. */
function malformed(s: SmtlState, problem: string, raw: string): void {
  countMalformed(s, "malformed reply", problem, {
    state: seen(s),
    answer: { error: problem, reply: raw.slice(0, 2000) },
  });
}

const contextSize = (s: SmtlState, mode: TagMode) => s.talk.size(mode.system);

/** The tag protocol in one mode (its prompts and final step are the mode's, from the run's context). */
export function tagProtocol(modeName: "answer" | "research"): SmtlProtocol<TagAction> {
  let current: TagMode | undefined;
  const mode = () => current!;
  let step: TextCodec<SmtlState, TagAction> | undefined;
  return {
    start(ctx, options) {
      current = tagMode(modeName, ctx, options);
      step = stepCodec(current);
      return new SmtlState(ctx, options, { task: current.task, figures: answerFigures });
    },
    limit: (s) => (s.replies >= s.maxSteps ? "step-cap" : null),
    overContext: (s) => s.talk.turns.length > 1 && contextSize(s, mode()) > s.windows.contextTokens,
    resetContext: (s) => resetContext(s, mode()),
    codec: () => step!,
    refused: malformed,
    act: (s, action, raw) => act(s, mode(), action, raw),
    refineDue: (s) => s.replies % s.refineEvery === 0,
    // The request for a summary rides with the tool responses just told.
    refine: async (s) => s.talk.appendToLast(SUMMARY_NUDGE),
    done: (s) => s.answer !== null,
    finish: (s) => mode().finish(s),
  };
}

/** The forced refinement: a summary from the whole conversation, then a reset to it. */
async function resetContext(s: SmtlState, mode: TagMode): Promise<string | null> {
  const tokensBefore = contextSize(s, mode);
  const r = await sampleReply(s, summaryCodec(mode));
  if (r.kind === "stop") return r.reason;
  const summary = r.kind === "action" ? r.action : null;
  if (r.kind === "action") {
    (s.figures as SmtlFigures).refinements++;
    s.record("summary", seen(s, { forced: true }), r.raw);
  } else malformed(s, r.error, r.raw);
  resetConversation(s, mode.resetMessage(summary), tokensBefore, () => contextSize(s, mode));
  return s.stopReason;
}

/** An accepted reply: the answer, the calls run at once, or the plan or summary noted. */
async function act(s: SmtlState, mode: TagMode, action: TagAction, raw: string): Promise<boolean> {
  s.talk.accept(raw);
  s.replies++;
  if (action.kind === "answer") {
    if (s.figures.toolCalls === 0 && !s.reasked) {
      // An answer before the first tool call: asked once more; the mode fails a run that insists.
      s.reasked = true;
      s.record("answer", seen(s, { beforeResearch: true }), raw);
      s.ctx.emit({
        type: "warning",
        code: "NO_CALL_YET",
        message: "the agent answered before its first tool call; asked once more",
      });
      s.talk.tell(NO_CALL_YET);
      return false;
    }
    s.record("answer", seen(s), raw);
    s.answer = { text: action.text, citations: [], verification: [] };
    s.insisted = s.figures.toolCalls === 0;
    return false;
  }
  if (action.kind === "calls") {
    s.record("search", seen(s, { calls: action.calls.length }), raw);
    const responses = await runTagCalls(s, action.calls);
    if (action.calls.every((c) => !c.ok)) malformed(s, "every tool call of the reply is malformed", raw);
    s.talk.tell(responses);
    return true;
  }
  const summary = action.kind === "summary" || (action.kind === "note" && action.tags.includes("summary"));
  if (summary) (s.figures as SmtlFigures).refinements++;
  s.record(action.kind === "note" ? noteAction(action.tags) : action.kind, seen(s), raw);
  const framing = action.kind === "plan" || (action.kind === "note" && action.tags.includes("subtask_list"));
  if (framing && s.figures.steps === 0)
    s.ctx.emit({ type: "task-framed", spec: { mode: mode.name, plan: planText(action, raw), ...s.windows } });
  s.talk.tell(CONTINUE_MESSAGE);
  return false;
}
