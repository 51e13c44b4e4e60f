/**
 * The smtl strategy (seed: SMTL §3, Algorithm 1, §6.1, App. A, D.1): short verified answers to
 * deep-search questions by searching more and thinking less.
 *
 * 1. Plan first: before any tool call the model states 1–5 goals, each with 1–5 ordered
 *    fallback paths and a success criterion, together with the first step's calls.
 * 2. Parallel steps: each step issues 1–5 tool calls (at most 10) — `web_search`,
 *    goal-conditioned `crawl_page`, `local_search` when documents are given — run at once
 *    through the gateway; the observations come back as one turn.
 * 3. Every `refineEvery` steps (default 5) a plan refinement: status per goal (completed / in
 *    progress / blocked), analysis of the paths tried, next parallel sub-paths.
 * 4. When the conversation reaches the context budget — the searcher model's context window,
 *    the seed's 128K at most (windows.ts) — a forced refinement and a reset to the system prompt
 *    + task + refreshed plan; older turns are dropped. A page read shows the reader the seed's
 *    share of the reader model's window (≈116K of 128K), 60 % head and 40 % tail.
 * 5. The answer is accepted only when it cites evidence retrieved in this run and every goal
 *    is verified by such evidence. At the step cap, when the error budget for malformed actions
 *    is spent or a budget limit is reached, the answer is written over the conversation (its
 *    oldest turns dropped to fit) and the evidence gathered.
 *
 * Fallbacks, each a `warning` event: a malformed reply is fed back and counted
 * (`MALFORMED_ACTION`); a failed refinement keeps the plan as it was (`REFINE_FALLBACK`); a
 * failed answer from evidence leaves the answer empty (`ANSWER_FALLBACK`).
 */

import type { ZodType } from "zod";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { jsonInstruction } from "../../llm/structured.ts";
import { type AskOutcome, answerFromEvidence, finishAnswer, type SmtlFigures } from "./answer.ts";
import { SmtlConversation, samplingOf } from "./conversation.ts";
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
  describeCall,
  planFrom,
  planReplySchema,
  refinePlan,
  refineReplySchema,
  type SmtlCall,
  type SmtlPlan,
  stepReplySchema,
} from "./protocol.ts";
import { SmtlSteps, startIteration } from "./steps.ts";
import { smtlWindows } from "./windows.ts";

/** Options of {@link runSmtl}. */
export interface SmtlOptions {
  tools: ResearchTools;
  /** Language code of the answer. */
  language: string;
  /** Tool-calling steps at most (the plan step included). Default 100. */
  maxSteps?: number;
  /** Steps between plan refinements. Default 5. */
  refineEvery?: number;
  /** Malformed actions tolerated before the run answers from evidence. Default 10. */
  errorBudget?: number;
  /**
   * Estimated tokens of the conversation that trigger a forced refinement and reset. Default:
   * the searcher model's context window, at most the seed's 131,072.
   */
  contextTokens?: number;
  /** The models' context window in tokens, when the model table does not know it (local models). */
  contextWindow?: number;
  /** Results per search. Default 5. */
  topK?: number;
  /** Sampling of the agent's calls, when the user sets it (else the provider's defaults). */
  temperature?: number;
  topP?: number;
  /** Share of the token, cost and time budget the loop may use before answering. Default 0.9. */
  explorationShare?: number;
}

/** Runs the smtl strategy. */
export async function runSmtl(ctx: RunContext, options: SmtlOptions): Promise<AskOutcome> {
  return ctx.inScope("smtl", () => smtlLoop(ctx, options));
}

async function smtlLoop(ctx: RunContext, options: SmtlOptions): Promise<AskOutcome> {
  const maxSteps = options.maxSteps ?? 100;
  const refineEvery = options.refineEvery ?? 5;
  const errorBudget = options.errorBudget ?? 10;
  const windows = smtlWindows(ctx, {
    contextWindow: options.contextWindow,
    contextTokens: options.contextTokens,
  });
  const { contextTokens } = windows;
  const pageWindow = { maxPageTokens: windows.pageTokens, headShare: windows.headShare };
  const topK = options.topK ?? 5;
  const tools = options.tools.available;
  const guard = explorationGuard(ctx, options.explorationShare ?? 0.9);
  const figures: SmtlFigures = {
    steps: 0,
    toolCalls: 0,
    toolCallsPerStep: null,
    callsByStep: [],
    modelTurns: 0,
    refinements: 0,
    contextResets: 0,
    malformedActions: 0,
    contextTokens,
    pageTokens: windows.pageTokens,
  };
  const steps = new SmtlSteps(ctx, { tools: options.tools, topK, pageWindow }, figures);
  const { retrieved } = steps;
  let plan: SmtlPlan | null = null;
  const talk = new SmtlConversation(ctx, taskMessage(ctx.query, null, 0), samplingOf(options));
  let stopReason: string | null = null;
  let answer: AnswerReply | null = null;

  const system = (mode: keyof typeof MODE_LINES) =>
    agentSystem({
      tools,
      currentDate: ctx.currentDate,
      language: options.language,
      maxSteps,
      refineEvery,
      mode,
    });

  const ask = <T>(schema: ZodType<T>, mode: keyof typeof MODE_LINES, extra = "") => {
    figures.modelTurns++;
    return talk.call(schema, system(mode), extra);
  };

  /**
   * The trajectory: every model action as a `trajectory-step` event — what it saw (the step, the
   * evidence ids of the observations just before it), what it answered (thought and calls, the
   * plan, the refinement or the answer). An action that runs tools is recorded before they start,
   * so the tool calls that follow belong to it.
   */
  let trajectory = 0;
  const record = (action: string, answer: unknown, extra: Record<string, unknown> = {}) =>
    ctx.emit({
      type: "trajectory-step",
      step: ++trajectory,
      action,
      state: { step: figures.steps, observations: steps.lastObserved, ...extra },
      answer,
    });

  /** Counts a malformed action; true when the error budget is spent. */
  const malformed = (error: string): boolean => {
    record("malformed", { error: error.slice(0, 600) });
    figures.malformedActions++;
    ctx.emit({
      type: "warning",
      code: "MALFORMED_ACTION",
      message: `malformed action ${figures.malformedActions} of ${errorBudget}: ${error.slice(0, 300)}`,
    });
    talk.reject(error);
    if (figures.malformedActions < errorBudget) return false;
    stopReason = "error-budget";
    return true;
  };

  const runStep = async (calls: readonly SmtlCall[], repeated: readonly SmtlCall[] = []) =>
    talk.tell(await steps.run(calls, repeated));

  const refine = async (forced: boolean): Promise<boolean> => {
    if (!plan) return false;
    ctx.emit({
      type: "phase",
      phase: "refining",
      detail: `step ${figures.steps}${forced ? " (context budget)" : ""}`,
    });
    const r = await ask(refineReplySchema, "refine", REFINE_REQUEST);
    if (r.kind === "stop") {
      stopReason = r.reason;
      return false;
    }
    if (r.kind === "malformed") {
      ctx.emit({
        type: "warning",
        code: "REFINE_FALLBACK",
        message: `plan refinement failed: ${r.error.slice(0, 200)}`,
      });
      figures.malformedActions++;
      talk.clearRejection();
      if (figures.malformedActions >= errorBudget) stopReason = "error-budget";
      return false;
    }
    record("refine", r.value, { forced });
    plan = refinePlan(plan, r.value);
    figures.refinements++;
    ctx.emit({ type: "plan-refine", step: figures.steps, forced, plan });
    talk.recordRefinement(
      REFINE_REQUEST,
      r.raw,
      `${renderPlan(plan)}\n\n${nextStepNote(figures.steps, maxSteps, true)}`,
    );
    return true;
  };

  /** The periodic refinement after every `refineEvery`-th step (none once the cap is reached). */
  const refineWhenDue = async () => {
    if (figures.steps % refineEvery === 0 && figures.steps < maxSteps) await refine(false);
  };

  // What a step call sends: the system prompt with the reply's schema (in the instructions, or
  // in the provider's response format, counted as input either way) and the conversation.
  const stepInstructions = `${system("step")}\n\n${jsonInstruction(stepReplySchema(tools))}`;
  const contextSize = () => talk.size(stepInstructions);

  // 1. The plan, with the first parallel calls; no tool runs before a valid plan.
  ctx.emit({ type: "phase", phase: "planning" });
  while (!plan && !stopReason) {
    const stop = guard();
    if (stop) {
      stopReason = stop;
      break;
    }
    const limit = startIteration(ctx);
    if (limit) {
      stopReason = limit;
      break;
    }
    const r = await ask(planReplySchema(tools), "plan");
    if (r.kind === "stop") stopReason = r.reason;
    else if (r.kind === "malformed") malformed(r.error);
    else {
      plan = { goals: planFrom(r.value.goals), nextPaths: [] };
      ctx.emit({
        type: "task-framed",
        spec: {
          mode: "smtl",
          thought: r.value.thought,
          goals: plan.goals,
          contextTokens,
          pageTokens: windows.pageTokens,
        },
      });
      record("plan", r.value);
      talk.accept(r.raw);
      await runStep(steps.fresh(r.value.calls));
      await refineWhenDue();
    }
  }

  // 2. Parallel steps, refinement every `refineEvery` steps, reset at the context budget.
  while (plan && !answer && !stopReason) {
    if (figures.steps >= maxSteps) {
      stopReason = "step-cap";
      break;
    }
    const stop = guard();
    if (stop) {
      stopReason = stop;
      break;
    }
    if (talk.turns.length > 1 && contextSize() > contextTokens) {
      const tokensBefore = contextSize();
      await refine(true);
      if (stopReason) break;
      const droppedTurns = talk.reset(
        `${taskMessage(ctx.query, plan, retrieved.size)}\n\n${nextStepNote(figures.steps, maxSteps, false)}`,
      );
      figures.contextResets++;
      ctx.emit({
        type: "context-reset",
        step: figures.steps,
        droppedTurns,
        tokensBefore,
        tokensAfter: contextSize(),
      });
    }
    const limit = startIteration(ctx);
    if (limit) {
      stopReason = limit;
      break;
    }
    const r = await ask(stepReplySchema(tools), "step");
    if (r.kind === "stop") {
      stopReason = r.reason;
      break;
    }
    if (r.kind === "malformed") {
      malformed(r.error);
      continue;
    }
    const { calls, answer: proposed } = r.value;
    if (proposed && calls.length > 0) {
      malformed("a reply holds either tool calls or the answer, not both");
      continue;
    }
    if (proposed) {
      const problem = answerProblem(proposed, plan, retrieved);
      if (problem) {
        malformed(problem);
        continue;
      }
      record("answer", r.value);
      talk.accept(r.raw);
      answer = proposed;
      break;
    }
    if (calls.length === 0) {
      malformed("the reply has neither tool calls nor an answer");
      continue;
    }
    const fresh = steps.fresh(calls);
    if (fresh.length === 0) {
      malformed(`every call repeats one already made: ${calls.map(describeCall).join("; ").slice(0, 300)}`);
      continue;
    }
    record("search", r.value);
    talk.accept(r.raw);
    await runStep(
      fresh,
      calls.filter((c) => !fresh.includes(c)),
    );
    await refineWhenDue();
  }

  figures.toolCallsPerStep = figures.steps ? figures.toolCalls / figures.steps : null;
  if (answer) {
    ctx.emit({ type: "decision", decision: "stop", reason: "answered: every goal verified" });
    return finishAnswer(ctx, {
      text: answer.text,
      citations: answer.citations,
      verification: answer.verification,
      verified: true,
      plan,
      retrieved,
      language: options.language,
      stopReason: "answered",
      figures,
    });
  }
  const reason = stopReason ?? "step-cap";
  // No plan ran a tool (malformed plans to the error budget, a budget spent): no research, no answer.
  requireResearch(ctx, {
    stopReason: reason,
    ...(figures.steps === 0 ? { why: `the loop stopped (${reason}) before its first tool call` } : {}),
  });
  ctx.emit({ type: "decision", decision: "stop", reason: `${reason}: answering from the evidence gathered` });
  ctx.emit({ type: "phase", phase: "answering", detail: reason });
  const fromEvidence = await answerFromEvidence(ctx, {
    plan,
    retrieved,
    language: options.language,
    conversation: talk.turns,
    contextTokens,
  });
  record("final-answer", fromEvidence, { reason });
  return finishAnswer(ctx, {
    text: fromEvidence?.answer ?? "",
    citations: fromEvidence?.citations ?? [],
    verification: [],
    verified: false,
    plan,
    retrieved,
    language: options.language,
    stopReason: reason,
    figures,
  });
}
