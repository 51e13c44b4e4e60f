/**
 * smtl's deep-research mode (seed: SMTL App. D.1; `dossier research --strategy smtl`, option
 * `mode: "research"`): the same parallel search agent, answering an open question with a full
 * cited report instead of a short answer.
 *
 * 1. The subtask list comes first; no tool runs before a valid one.
 * 2. The subtasks are worked in order. Every reply on a subtask opens with an analysis; the
 *    first adds a plan of fine-grained steps; a reply holds 1–5 tool calls (at most 10) that
 *    run at once, or the subtask's answer, which must cite evidence retrieved in the run.
 * 3. When the conversation reaches the context budget (sized from the model's window, as in
 *    the deep-search mode) it is reset to the task, the subtasks and the answers given so far.
 * 4. After the last subtask — or at the step cap, the error budget or a budget limit — the
 *    report is written over the conversation (oldest turns dropped to fit) and the subtask
 *    answers, and assembled by the shared citation pass: only evidence retrieved in the run
 *    may be cited. A run that made no tool call fails with `NO_RESEARCH`.
 *
 * Fallbacks, each a `warning` event: a malformed reply is fed back and counted
 * (`MALFORMED_ACTION`); a failed report call leaves a report made of the subtask answers
 * (`REPORT_FALLBACK`).
 */

import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { assembleReport } from "../../kit/report-assembly.ts";
import { normalizeReport, outlineOfReport } from "../../kit/report-form.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { extractive } from "../../kit/section-writer.ts";
import { jsonInstruction } from "../../llm/structured.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import type { ResearchOutcome } from "../types.ts";
import { fitConversation } from "./answer.ts";
import { SmtlConversation, samplingOf } from "./conversation.ts";
import { describeCall } from "./protocol.ts";
import {
  nextSubtaskNote,
  type RESEARCH_MODE_LINES,
  renderSubtasks,
  researchSystem,
  researchTask,
} from "./research-prompts.ts";
import {
  researchReportSchema,
  type Subtask,
  subtaskAnswerProblem,
  subtaskListSchema,
  subtaskStepSchema,
} from "./research-protocol.ts";
import { SmtlSteps, startIteration } from "./steps.ts";
import { smtlWindows } from "./windows.ts";

/** Options of {@link runSmtlResearch}. */
export interface SmtlResearchOptions {
  tools: ResearchTools;
  language: string;
  /** Tool-calling steps at most. Default 100. */
  maxSteps?: number;
  /** Malformed actions tolerated before the report is written. Default 10. */
  errorBudget?: number;
  contextTokens?: number;
  contextWindow?: number;
  topK?: number;
  /** Sampling of the agent's calls, when the user sets it (else the provider's defaults). */
  temperature?: number;
  topP?: number;
  explorationShare?: number;
}

/** Figures of a deep-research run (in the `decision` event that ends the loop). */
export interface SmtlResearchFigures {
  subtasks: number;
  answered: number;
  steps: number;
  toolCalls: number;
  callsByStep: number[];
  modelTurns: number;
  contextResets: number;
  malformedActions: number;
  contextTokens: number;
  pageTokens: number;
}

/** Output cap of the report call (the seed's per-call maximum, 8,192 tokens). */
const REPORT_MAX_TOKENS = 8192;

/** Runs the deep-research mode. */
export async function runSmtlResearch(
  ctx: RunContext,
  options: SmtlResearchOptions,
): Promise<ResearchOutcome> {
  return ctx.inScope("smtl", () => researchLoop(ctx, options));
}

async function researchLoop(ctx: RunContext, options: SmtlResearchOptions): Promise<ResearchOutcome> {
  const maxSteps = options.maxSteps ?? 100;
  const errorBudget = options.errorBudget ?? 10;
  const topK = options.topK ?? 5;
  const tools = options.tools.available;
  const guard = explorationGuard(ctx, options.explorationShare ?? 0.9);
  const windows = smtlWindows(ctx, {
    contextWindow: options.contextWindow,
    contextTokens: options.contextTokens,
  });
  const pageWindow = { maxPageTokens: windows.pageTokens, headShare: windows.headShare };
  const figures: SmtlResearchFigures = {
    subtasks: 0,
    answered: 0,
    steps: 0,
    toolCalls: 0,
    callsByStep: [],
    modelTurns: 0,
    contextResets: 0,
    malformedActions: 0,
    contextTokens: windows.contextTokens,
    pageTokens: windows.pageTokens,
  };
  const steps = new SmtlSteps(ctx, { tools: options.tools, topK, pageWindow }, figures);
  const { retrieved } = steps;
  const talk = new SmtlConversation(ctx, researchTask(ctx.query, null, 0), samplingOf(options));
  let subtasks: Subtask[] | null = null;
  let current = 0;
  let stopReason: string | null = null;
  let trajectory = 0;

  const system = (mode: keyof typeof RESEARCH_MODE_LINES) =>
    researchSystem({ tools, currentDate: ctx.currentDate, language: options.language, maxSteps, mode });
  const record = (action: string, state: Record<string, unknown>, answer: unknown) =>
    ctx.emit({ type: "trajectory-step", step: ++trajectory, action, state, answer });
  const malformed = (error: string) => {
    figures.malformedActions++;
    ctx.emit({
      type: "warning",
      code: "MALFORMED_ACTION",
      message: `malformed action ${figures.malformedActions} of ${errorBudget}: ${error.slice(0, 300)}`,
    });
    record("malformed", { step: figures.steps }, { error: error.slice(0, 600) });
    talk.reject(error);
    if (figures.malformedActions >= errorBudget) stopReason = "error-budget";
  };
  const stepSchema = subtaskStepSchema(tools);
  const stepInstructions = `${system("subtask")}\n\n${jsonInstruction(stepSchema)}`;

  // 1. The subtask list; no tool runs before it.
  ctx.emit({ type: "phase", phase: "planning" });
  while (!subtasks && !stopReason) {
    stopReason = guard() ?? startIteration(ctx);
    if (stopReason) break;
    figures.modelTurns++;
    const r = await talk.call(subtaskListSchema, system("subtasks"));
    if (r.kind === "stop") stopReason = r.reason;
    else if (r.kind === "malformed") malformed(r.error);
    else {
      subtasks = r.value.subtasks.map((s, i) => ({ id: `S${i + 1}`, title: s.title, goal: s.goal }));
      figures.subtasks = subtasks.length;
      record("subtask-list", { observations: [] }, r.value);
      ctx.emit({
        type: "task-framed",
        spec: { mode: "smtl-research", analysis: r.value.analysis, subtasks, ...windows },
      });
      talk.accept(r.raw);
      talk.tell(
        `${renderSubtasks(subtasks, 0)}\n\n${nextSubtaskNote(subtasks, 0).replace(/^Subtask answer recorded\. /, "")}`,
      );
    }
  }

  // 2. The subtasks in order: analysis, calls until answerable, the subtask's answer.
  while (subtasks && current < subtasks.length && !stopReason) {
    if (figures.steps >= maxSteps) {
      stopReason = "step-cap";
      break;
    }
    stopReason = guard();
    if (stopReason) break;
    if (talk.turns.length > 1 && talk.size(stepInstructions) > windows.contextTokens) {
      const tokensBefore = talk.size(stepInstructions);
      const droppedTurns = talk.reset(
        `${researchTask(ctx.query, subtasks, current)}\n\n${nextSubtaskNote(subtasks, current).replace(/^Subtask answer recorded\. /, "Current: ")}`,
      );
      figures.contextResets++;
      ctx.emit({
        type: "context-reset",
        step: figures.steps,
        droppedTurns,
        tokensBefore,
        tokensAfter: talk.size(stepInstructions),
      });
    }
    stopReason = startIteration(ctx);
    if (stopReason) break;
    const subtask = subtasks[current]!;
    figures.modelTurns++;
    const seen = { subtask: subtask.id, step: figures.steps, observations: steps.lastObserved };
    const r = await talk.call(
      stepSchema,
      system("subtask"),
      `Current subtask: ${subtask.id} ${subtask.title}`,
    );
    if (r.kind === "stop") {
      stopReason = r.reason;
      break;
    }
    if (r.kind === "malformed") {
      malformed(r.error);
      continue;
    }
    const { calls, subtaskAnswer } = r.value;
    if (subtaskAnswer && calls.length > 0) {
      malformed("a reply holds either tool calls or the subtask answer, not both");
      continue;
    }
    if (subtaskAnswer) {
      const problem = subtaskAnswerProblem(subtaskAnswer, retrieved);
      if (problem) {
        malformed(problem);
        continue;
      }
      record("subtask-answer", seen, r.value);
      talk.accept(r.raw);
      subtask.answer = subtaskAnswer.text.trim();
      subtask.citations = subtaskAnswer.citations;
      figures.answered++;
      current++;
      steps.lastObserved = [];
      talk.tell(nextSubtaskNote(subtasks, current));
      continue;
    }
    if (calls.length === 0) {
      malformed("the reply has neither tool calls nor the subtask answer");
      continue;
    }
    const fresh = steps.fresh(calls);
    if (fresh.length === 0) {
      malformed(`every call repeats one already made: ${calls.map(describeCall).join("; ").slice(0, 300)}`);
      continue;
    }
    // Recorded before the calls run, so the tool calls that follow belong to this action.
    record("search", seen, r.value);
    talk.accept(r.raw);
    talk.tell(
      await steps.run(
        fresh,
        calls.filter((c) => !fresh.includes(c)),
      ),
    );
  }

  // 3. The report, over the conversation and the subtask answers.
  const reason = stopReason ?? "completed";
  ctx.emit({ type: "decision", decision: "stop", reason: `${reason}: writing the report`, details: figures });
  requireResearch(ctx, {
    stopReason: reason,
    ...(figures.steps === 0 ? { why: `the loop stopped (${reason}) before its first tool call` } : {}),
  });
  ctx.emit({ type: "phase", phase: "writing", detail: reason });
  const text =
    (await writeResearchReport(ctx, {
      talk,
      subtasks: subtasks ?? [],
      retrieved,
      reason,
      system: system("report"),
      contextTokens: windows.contextTokens,
    })) ?? fallbackReport(ctx, subtasks ?? [], retrieved);
  const { title, body } = normalizeReport(text, ctx.query);
  const report = assembleReport(ctx, {
    title,
    outline: outlineOfReport(body, title),
    parts: [{ text: body, allowed: retrieved }],
    language: options.language,
    stopReason: reason,
  });
  requireResearch(ctx, { stopReason: reason, body: report.body });
  return { stopReason: reason, report };
}

/** The report call; null (with a `REPORT_FALLBACK` warning) when it failed. */
async function writeResearchReport(
  ctx: RunContext,
  input: {
    talk: SmtlConversation;
    subtasks: readonly Subtask[];
    retrieved: ReadonlySet<string>;
    reason: string;
    system: string;
    contextTokens: number;
  },
): Promise<string | null> {
  const request = [
    input.reason === "completed"
      ? "Every subtask is answered. Write the final report now."
      : `The research stopped (${input.reason}) before every subtask was answered. Write the final report now from what was found, saying plainly what remains open.`,
    "",
    renderSubtasks(input.subtasks, -1),
  ].join("\n");
  const { messages, last } = fitConversation(
    input.talk.turns,
    input.contextTokens - estimateTokens(input.system) - REPORT_MAX_TOKENS,
    request,
  );
  try {
    const r = await ctx.inScope("report", () =>
      ctx.structured({
        // One model does it all in the seed: the report is the agent's own answer.
        role: "searcher",
        schema: researchReportSchema,
        system: input.system,
        ...(messages.length ? { messages } : {}),
        prompt: last ? `${last}\n\n${request}` : request,
        maxOutputTokens: REPORT_MAX_TOKENS,
      }),
    );
    return r.value.report;
  } catch (error) {
    if (isDossierError(error, "CANCELLED") || ctx.signal.aborted) throw error;
    const limit = exceededLimit(error);
    ctx.emit({
      type: "warning",
      code: "REPORT_FALLBACK",
      message: `the report call failed (${limit ? `budget:${limit}` : isDossierError(error) ? error.code : "error"}); the report is made of the subtask answers`,
    });
    return null;
  }
}

/** A report made of the subtask answers, or of the evidence when no subtask was answered. */
function fallbackReport(
  ctx: RunContext,
  subtasks: readonly Subtask[],
  retrieved: ReadonlySet<string>,
): string {
  const answered = subtasks.filter((s) => s.answer);
  if (answered.length) return answered.map((s) => `## ${s.title}\n\n${s.answer}`).join("\n\n");
  const evidence = [...retrieved].map((id) => ctx.evidence.getEvidence(id)).filter((e) => e !== undefined);
  return `## Evidence gathered\n\n${extractive(evidence, 12)}`;
}
