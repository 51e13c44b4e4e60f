/**
 * smtl's JSON protocol in the short-answer mode (seed: SMTL §3, Algorithm 1, §6.1): structured
 * replies any model can give — the plan of goals with the first parallel calls, then steps of
 * parallel calls or the answer, and a refinement call every `refineEvery` steps and before a
 * reset. The answer is accepted only when it cites evidence retrieved in the run and every goal
 * is verified by such evidence; a refused reply is fed back with its reason.
 */

import type { JsonCodec } from "../../kit/protocol/codec.ts";
import { decoded } from "../../kit/protocol/codec.ts";
import { requireResearch } from "../../kit/research-done.ts";
import { jsonInstruction } from "../../llm/structured.ts";
import type { ResearchOutcome } from "../types.ts";
import { answerFromEvidence, finishAnswer, type SmtlFigures } from "./answer.ts";
import { decodeStep, jsonProtocol, jsonRequest } from "./json-protocol.ts";
import {
  agentSystem,
  type MODE_LINES,
  nextStepNote,
  REFINE_REQUEST,
  renderPlan,
  taskMessage,
} from "./prompts.ts";
import {
  type AnswerReply,
  answerProblem,
  planFrom,
  planReplySchema,
  refinePlan,
  refineReplySchema,
  type SmtlCall,
  stepReplySchema,
} from "./protocol.ts";
import type { SmtlProtocol } from "./run.ts";
import { answerFigures, type SmtlState } from "./state.ts";
import { sampleRefinement } from "./turn.ts";

type PlanReply = ReturnType<typeof planReplySchema>["_output"];
type StepReply = ReturnType<typeof stepReplySchema>["_output"];

/** A decoded reply of the short-answer JSON protocol. */
export type JsonAnswerAction =
  | { kind: "plan"; value: PlanReply }
  | { kind: "calls"; value: StepReply; calls: SmtlCall[] }
  | { kind: "answer"; value: StepReply; answer: AnswerReply };

const system = (s: SmtlState, mode: keyof typeof MODE_LINES) =>
  agentSystem({
    tools: s.tools,
    currentDate: s.ctx.currentDate,
    language: s.options.language,
    maxSteps: s.maxSteps,
    refineEvery: s.refineEvery,
    mode,
  });

/** The plan with the first parallel calls; no tool runs before it. */
const planCodec: JsonCodec<SmtlState, JsonAnswerAction, PlanReply> = {
  kind: "json",
  name: "smtl-json",
  request: (s) => jsonRequest(s, system(s, "plan"), planReplySchema(s.tools)),
  decode: (value) => decoded({ kind: "plan", value }),
};

/** A step: parallel calls not made before, or the answer once every goal is verified. */
const stepCodec: JsonCodec<SmtlState, JsonAnswerAction, StepReply> = {
  kind: "json",
  name: "smtl-json",
  request: (s) => jsonRequest(s, system(s, "step"), stepReplySchema(s.tools)),
  decode: (value, s) =>
    decodeStep(
      s,
      value,
      {
        both: "a reply holds either tool calls or the answer, not both",
        neither: "the reply has neither tool calls nor an answer",
        check: (answer) => answerProblem(answer, s.plan!, s.retrieved),
      },
      {
        answer: (answer): JsonAnswerAction => ({ kind: "answer", value, answer }),
        calls: () => ({ kind: "calls", value, calls: value.calls }),
      },
    ),
};

type RefineReply = (typeof refineReplySchema)["_output"];
const refineCodec: JsonCodec<SmtlState, RefineReply, RefineReply> = {
  kind: "json",
  name: "smtl-json",
  request: (s) => jsonRequest(s, system(s, "refine"), refineReplySchema, REFINE_REQUEST),
  decode: (value) => decoded(value),
};

const seen = (s: SmtlState, extra: Record<string, unknown> = {}) => ({
  step: s.figures.steps,
  observations: s.steps.lastObserved,
  ...extra,
});

/** Runs fresh calls as one step; the results (and the calls not run) go back to the model. */
async function runStep(s: SmtlState, calls: readonly SmtlCall[], repeated: readonly SmtlCall[] = []) {
  s.talk.tell(await s.steps.run(calls, repeated));
}

/** The refinement (forced at the context budget); a failed one keeps the plan as it was. */
async function refine(s: SmtlState, forced: boolean): Promise<void> {
  if (!s.plan) return;
  const r = await sampleRefinement(s, refineCodec, forced, "plan refinement");
  if (!r) return;
  const figures = s.figures as SmtlFigures;
  s.record("refine", seen(s, { forced }), r.action);
  s.plan = refinePlan(s.plan, r.action);
  figures.refinements++;
  s.ctx.emit({ type: "plan-refine", step: s.figures.steps, forced, plan: s.plan });
  s.talk.recordRefinement(
    REFINE_REQUEST,
    r.raw,
    `${renderPlan(s.plan)}\n\n${nextStepNote(s.figures.steps, s.maxSteps, true)}`,
  );
}

/** The short-answer mode in the JSON protocol. */
export const jsonAnswerProtocol: SmtlProtocol<JsonAnswerAction> = jsonProtocol<JsonAnswerAction>({
  task: (query) => taskMessage(query, null, 0),
  figures: answerFigures,
  framed: (s) => s.plan !== null,
  stepInstructions: (s) => `${system(s, "step")}\n\n${jsonInstruction(stepReplySchema(s.tools))}`,
  beforeReset: (s) => refine(s, true),
  resetMessage: (s) =>
    `${taskMessage(s.ctx.query, s.plan, s.retrieved.size)}\n\n${nextStepNote(s.figures.steps, s.maxSteps, false)}`,
  seen,
  codec: (s) => (s.plan ? stepCodec : planCodec),
  async act(s, action, raw) {
    if (action.kind === "plan") {
      s.plan = { goals: planFrom(action.value.goals), nextPaths: [] };
      const { contextTokens, pageTokens } = s.windows;
      s.ctx.emit({
        type: "task-framed",
        spec: {
          mode: "smtl",
          thought: action.value.thought,
          goals: s.plan.goals,
          contextTokens,
          pageTokens,
        },
      });
      s.record("plan", seen(s), action.value);
      s.talk.accept(raw);
      await runStep(s, s.steps.fresh(action.value.calls));
      return true;
    }
    s.record(action.kind === "answer" ? "answer" : "search", seen(s), action.value);
    s.talk.accept(raw);
    if (action.kind === "answer") {
      s.answer = action.answer;
      return false;
    }
    const fresh = s.steps.fresh(action.calls);
    await runStep(
      s,
      fresh,
      action.calls.filter((c) => !fresh.includes(c)),
    );
    return true;
  },
  refineDue: (s) => s.figures.steps % s.refineEvery === 0 && s.figures.steps < s.maxSteps,
  refine: (s) => refine(s, false),
  done: (s) => s.answer !== null,
  finish,
});

/** The end: the verified answer, or an answer written from the evidence gathered. */
async function finish(s: SmtlState): Promise<ResearchOutcome> {
  const { ctx } = s;
  const figures = s.figures as SmtlFigures;
  figures.toolCallsPerStep = figures.steps ? figures.toolCalls / figures.steps : null;
  const common = { plan: s.plan, retrieved: s.retrieved, language: s.options.language, figures };
  const { answer } = s;
  if (answer) {
    ctx.emit({ type: "decision", decision: "stop", reason: "answered: every goal verified" });
    const { text, citations, verification } = answer;
    return finishAnswer(ctx, {
      ...common,
      text,
      citations,
      verification,
      verified: true,
      stopReason: "answered",
    });
  }
  const reason = s.stopReason ?? "step-cap";
  // No plan ran a tool (malformed plans to the error budget, a budget spent): no research, no answer.
  requireResearch(ctx, {
    stopReason: reason,
    ...(figures.steps === 0 ? { why: `the loop stopped (${reason}) before its first tool call` } : {}),
  });
  ctx.emit({ type: "decision", decision: "stop", reason: `${reason}: answering from the evidence gathered` });
  ctx.emit({ type: "phase", phase: "answering", detail: reason });
  const fromEvidence = await answerFromEvidence(ctx, {
    ...common,
    conversation: s.talk.turns,
    contextTokens: s.windows.contextTokens,
  });
  s.record("final-answer", seen(s, { reason }), fromEvidence);
  return finishAnswer(ctx, {
    ...common,
    text: fromEvidence?.answer ?? "",
    citations: fromEvidence?.citations ?? [],
    verification: [],
    verified: false,
    stopReason: reason,
  });
}
