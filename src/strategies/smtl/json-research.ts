/**
 * smtl's JSON protocol in the deep-research mode (seed: SMTL App. D.1): the subtask list first
 * (no tool runs before it); then the subtasks in order, every reply opening with an analysis,
 * 1–5 parallel calls per step until the subtask is answerable, then its answer, which must cite
 * evidence retrieved in the run; at the context budget a reset to the task, the subtasks and the
 * answers given so far; every `refineEvery` tool steps and before each reset a refinement of the
 * pending subtasks (json-research-refine.ts); after the last subtask (or at the step cap, the error budget or a budget
 * limit) the report, written over the conversation and the subtask answers. A refused reply is
 * fed back with its reason. Fallback: a failed report call leaves a report made of the subtask
 * answers (`REPORT_FALLBACK`).
 */

import { decoded, type JsonCodec } from "../../kit/protocol/codec.ts";
import { failureOf } from "../../kit/protocol/sample.ts";
import { requireResearch } from "../../kit/research-done.ts";
import { jsonInstruction } from "../../llm/structured.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import type { ResearchOutcome } from "../types.ts";
import { fitConversation } from "./answer.ts";
import { decodeStep, jsonProtocol, jsonRequest } from "./json-protocol.ts";
import { refineResearch } from "./json-research-refine.ts";
import type { SmtlCall } from "./protocol.ts";
import {
  nextSubtaskNote,
  type RESEARCH_MODE_LINES,
  renderSubtasks,
  researchSystem,
  researchTask,
} from "./research-prompts.ts";
import {
  researchReportSchema,
  type SubtaskStep,
  subtaskAnswerProblem,
  subtaskListSchema,
  subtaskStepSchema,
} from "./research-protocol.ts";
import { evidenceReport, researchOutcome } from "./research-report.ts";
import { EDITED_SUBTASKS_NOTE, reviewSubtasks } from "./review.ts";
import type { SmtlProtocol } from "./run.ts";
import { researchFigures, type SmtlResearchFigures, type SmtlState } from "./state.ts";

type SubtaskList = (typeof subtaskListSchema)["_output"];

/** A decoded reply of the deep-research JSON protocol. */
export type JsonResearchAction =
  | { kind: "subtasks"; value: SubtaskList }
  | { kind: "calls"; value: SubtaskStep; calls: SmtlCall[] }
  | { kind: "subtask-answer"; value: SubtaskStep; answer: NonNullable<SubtaskStep["subtaskAnswer"]> };

/** Output cap of the report call (the seed's per-call maximum, 8,192 tokens). */
const REPORT_MAX_TOKENS = 8192;

const system = (s: SmtlState, mode: keyof typeof RESEARCH_MODE_LINES) =>
  researchSystem({
    tools: s.tools,
    currentDate: s.ctx.currentDate,
    language: s.options.language,
    maxSteps: s.maxSteps,
    mode,
  });

const listCodec: JsonCodec<SmtlState, JsonResearchAction, SubtaskList> = {
  kind: "json",
  name: "smtl-json-research",
  request: (s) => jsonRequest(s, system(s, "subtasks"), subtaskListSchema),
  decode: (value) => decoded({ kind: "subtasks", value }),
};

const stepCodec: JsonCodec<SmtlState, JsonResearchAction, SubtaskStep> = {
  kind: "json",
  name: "smtl-json-research",
  request(s) {
    const subtask = s.subtasks![s.current]!;
    return jsonRequest(
      s,
      system(s, "subtask"),
      subtaskStepSchema(s.tools),
      `Current subtask: ${subtask.id} ${subtask.title}`,
    );
  },
  decode: (value, s) =>
    decodeStep(
      s,
      { calls: value.calls, answer: value.subtaskAnswer },
      {
        both: "a reply holds either tool calls or the subtask answer, not both",
        neither: "the reply has neither tool calls nor the subtask answer",
        check: (answer) => subtaskAnswerProblem(answer, s.retrieved),
      },
      {
        answer: (answer): JsonResearchAction => ({ kind: "subtask-answer", value, answer }),
        calls: () => ({ kind: "calls", value, calls: value.calls }),
      },
    ),
};

/** The deep-research mode in the JSON protocol. */
export const jsonResearchProtocol: SmtlProtocol<JsonResearchAction> = jsonProtocol<JsonResearchAction>({
  task: (query) => researchTask(query, null, 0),
  figures: researchFigures,
  framed: (s) => s.subtasks !== null,
  stepInstructions: (s) => `${system(s, "subtask")}\n\n${jsonInstruction(subtaskStepSchema(s.tools))}`,
  resetMessage: (s) =>
    `${researchTask(s.ctx.query, s.subtasks, s.current)}\n\n${nextSubtaskNote(s.subtasks!, s.current).replace(/^Subtask answer recorded\. /, "Current: ")}`,
  seen: (s) => ({ step: s.figures.steps }),
  codec: (s) => (s.subtasks ? stepCodec : listCodec),
  act,
  beforeReset: (s) => refineResearch(s, true),
  refineDue: (s) =>
    s.subtasks !== null && s.figures.steps % s.refineEvery === 0 && s.figures.steps < s.maxSteps,
  refine: (s) => refineResearch(s, false),
  done: (s) => s.subtasks !== null && s.current >= s.subtasks.length,
  finish,
});

/** The subtask list, a step's parallel calls, or a subtask's answer. */
async function act(s: SmtlState, action: JsonResearchAction, raw: string): Promise<boolean> {
  const figures = s.figures as SmtlResearchFigures;
  if (action.kind === "subtasks") {
    const proposed = action.value.subtasks.map((t, i) => ({ id: `S${i + 1}`, title: t.title, goal: t.goal }));
    // With `reviewPlan` the run stops here until the subtasks are reviewed (review.ts).
    const edited = reviewSubtasks(s.ctx, proposed);
    const subtasks = edited ?? proposed;
    s.subtasks = subtasks;
    figures.subtasks = subtasks.length;
    s.record("subtask-list", { observations: [] }, action.value);
    s.ctx.emit({
      type: "task-framed",
      spec: { mode: "smtl-research", analysis: action.value.analysis, subtasks, ...s.windows },
    });
    s.talk.accept(raw);
    s.talk.tell(
      `${edited ? `${EDITED_SUBTASKS_NOTE}\n` : ""}${renderSubtasks(subtasks, 0)}\n\n${nextSubtaskNote(subtasks, 0).replace(/^Subtask answer recorded\. /, "")}`,
    );
    return false;
  }
  const subtasks = s.subtasks!;
  const subtask = subtasks[s.current]!;
  const seen = { subtask: subtask.id, step: s.figures.steps, observations: s.steps.lastObserved };
  // Recorded before the calls run, so the tool calls that follow belong to this action.
  s.record(action.kind === "calls" ? "search" : "subtask-answer", seen, action.value);
  s.talk.accept(raw);
  if (action.kind === "subtask-answer") {
    subtask.answer = action.answer.text.trim();
    subtask.citations = action.answer.citations;
    figures.answered++;
    s.current++;
    s.steps.lastObserved = [];
    s.talk.tell(nextSubtaskNote(subtasks, s.current));
    return false;
  }
  const fresh = s.steps.fresh(action.calls);
  s.talk.tell(
    await s.steps.run(
      fresh,
      action.calls.filter((c) => !fresh.includes(c)),
    ),
  );
  return true;
}

/** The report, over the conversation and the subtask answers. */
async function finish(s: SmtlState): Promise<ResearchOutcome> {
  const { ctx } = s;
  const reason = s.stopReason ?? "completed";
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: `${reason}: writing the report`,
    details: s.figures,
  });
  requireResearch(ctx, {
    stopReason: reason,
    ...(s.figures.steps === 0 ? { why: `the loop stopped (${reason}) before its first tool call` } : {}),
  });
  ctx.emit({ type: "phase", phase: "writing", detail: reason });
  const text = (await writeReport(s, reason)) ?? fallbackReport(s);
  return researchOutcome(s, text, reason);
}

/** The report call; null (with a `REPORT_FALLBACK` warning) when it failed. */
async function writeReport(s: SmtlState, reason: string): Promise<string | null> {
  const { ctx } = s;
  const reportSystem = system(s, "report");
  const request = [
    reason === "completed"
      ? "Every subtask is answered. Write the final report now."
      : `The research stopped (${reason}) before every subtask was answered. Write the final report now from what was found, saying plainly what remains open.`,
    "",
    renderSubtasks(s.subtasks ?? [], -1),
  ].join("\n");
  const { messages, last } = fitConversation(
    s.talk.turns,
    s.windows.contextTokens - estimateTokens(reportSystem) - REPORT_MAX_TOKENS,
    request,
  );
  try {
    const r = await ctx.inScope("report", () =>
      ctx.structured({
        // One model does it all in the seed: the report is the agent's own answer.
        role: "searcher",
        schema: researchReportSchema,
        system: reportSystem,
        ...(messages.length ? { messages } : {}),
        prompt: last ? `${last}\n\n${request}` : request,
        maxOutputTokens: REPORT_MAX_TOKENS,
      }),
    );
    return r.value.report;
  } catch (error) {
    ctx.emit({
      type: "warning",
      code: "REPORT_FALLBACK",
      message: `the report call failed (${failureOf(ctx, error)}); the report is made of the subtask answers`,
    });
    return null;
  }
}

/** A report made of the subtask answers, or of the evidence when no subtask was answered. */
function fallbackReport(s: SmtlState): string {
  const answered = (s.subtasks ?? []).filter((t) => t.answer);
  if (answered.length) return answered.map((t) => `## ${t.title}\n\n${t.answer}`).join("\n\n");
  return evidenceReport(s);
}
