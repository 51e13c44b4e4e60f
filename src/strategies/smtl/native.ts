/**
 * smtl in SMTL's own tag protocol (`protocol: "native"`, for the released checkpoints; seed:
 * SMTL's inference loop). One growing conversation; each step the model replies in tags (see
 * native-format.ts), sampled at the seed's temperature 1.0 and top-p 0.9 with up to 8,192
 * output tokens unless the options set them.
 *
 * - A reply that is empty, has an unbalanced tag or does not end with a closing tag is counted
 *   against the error budget (default 10) and sampled again from the same conversation: it is
 *   never added to it.
 * - `<answer>` ends the run; it is verified when it cites evidence retrieved in the run (and
 *   nothing else). `<tool_call>` blocks (1–5, at most 10 run) run at once; their results return
 *   as one message of `<tool_response>` blocks, a malformed or repeated call answered with an
 *   error rather than dropped; every `refineEvery`-th step (default 5) that message ends with
 *   the request for a `<summary>`. A reply with only `<plan>` or only `<summary>` is followed by
 *   the message to go on.
 * - When the conversation reaches the context budget (from the model's window, windows.ts) the
 *   model is asked for a summary, and the conversation is reset to the task and that summary.
 * - At the step cap, the error budget or a budget limit, the model answers within `<answer>`
 *   from the conversation (its oldest turns dropped to fit; the raw reply when it has no tag).
 */

import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { NO_CALL_YET, requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { runAction } from "../../kit/search-actions.ts";
import type { ChatMessage } from "../../llm/client.ts";
import { estimatePromptTokens, estimateTokens } from "../../llm/token-estimate.ts";
import { type AskOutcome, finishAnswer, fitConversation, type SmtlFigures } from "./answer.ts";
import {
  formatProblem,
  NATIVE_MAX_OUTPUT_TOKENS,
  NATIVE_SAMPLING,
  type NativeCall,
  parseToolCalls,
  tagContent,
  toolResponse,
} from "./native-format.ts";
import {
  CONTINUE_MESSAGE,
  NATIVE_FINAL_REQUEST,
  nativeSystem,
  nativeTask,
  observationText,
  resetMessage,
  SUMMARY_NUDGE,
} from "./native-prompts.ts";
import { describeCall, evidenceIdsIn, MAX_CALLS_PER_STEP, toAction } from "./protocol.ts";
import { smtlWindows } from "./windows.ts";

/** Options of {@link runSmtlNative}. */
export interface SmtlNativeOptions {
  tools: ResearchTools;
  language: string;
  /** Model steps (replies) at most. Default 100. */
  maxSteps?: number;
  /** Steps between requests for a summary. Default 5. */
  refineEvery?: number;
  /** Malformed replies tolerated. Default 10. */
  errorBudget?: number;
  contextTokens?: number;
  contextWindow?: number;
  topK?: number;
  /** Sampling; the seed's temperature 1.0 and top-p 0.9 when absent. */
  temperature?: number;
  topP?: number;
  explorationShare?: number;
}

/** What a native model call gave. */
type Sampled = { kind: "ok"; text: string } | { kind: "stop"; reason: string };

/** Runs smtl in the native tag protocol. */
export async function runSmtlNative(ctx: RunContext, options: SmtlNativeOptions): Promise<AskOutcome> {
  return ctx.inScope("smtl", () => nativeLoop(ctx, options));
}

async function nativeLoop(ctx: RunContext, options: SmtlNativeOptions): Promise<AskOutcome> {
  const maxSteps = options.maxSteps ?? 100;
  const refineEvery = options.refineEvery ?? 5;
  const errorBudget = options.errorBudget ?? 10;
  const topK = options.topK ?? 5;
  const tools = options.tools.available;
  const guard = explorationGuard(ctx, options.explorationShare ?? 0.9);
  const windows = smtlWindows(ctx, {
    contextWindow: options.contextWindow,
    contextTokens: options.contextTokens,
  });
  const pageWindow = { maxPageTokens: windows.pageTokens, headShare: windows.headShare };
  const sampling = {
    temperature: options.temperature ?? NATIVE_SAMPLING.temperature,
    topP: options.topP ?? NATIVE_SAMPLING.topP,
  };
  const system = nativeSystem({ tools, currentDate: ctx.currentDate, language: options.language, maxSteps });
  const figures: SmtlFigures = {
    steps: 0,
    toolCalls: 0,
    toolCallsPerStep: null,
    callsByStep: [],
    modelTurns: 0,
    refinements: 0,
    contextResets: 0,
    malformedActions: 0,
    contextTokens: windows.contextTokens,
    pageTokens: windows.pageTokens,
  };
  const retrieved = new Set<string>();
  const made = new Map<string, number>();
  let messages: ChatMessage[] = [{ role: "user", content: nativeTask(ctx.query) }];
  /** Accepted replies: the seed's step count (the summary nudge and the step cap count them). */
  let turns = 0;
  let stopReason: string | null = null;
  let answer: string | null = null;
  let trajectory = 0;
  let lastObserved: string[] = [];
  /** Whether an answer before the first tool call was sent back once. */
  let reasked = false;

  const record = (action: string, answer: unknown, extra: Record<string, unknown> = {}) =>
    ctx.emit({
      type: "trajectory-step",
      step: ++trajectory,
      action,
      state: { turn: turns, observations: lastObserved, ...extra },
      answer,
    });
  const size = () => estimatePromptTokens([system, ...messages.map((m) => m.content)]);
  const startIteration = (): string | null => {
    try {
      ctx.budget.startIteration();
      return null;
    } catch (error) {
      const limit = exceededLimit(error);
      if (!limit) throw error;
      return `budget:${limit}`;
    }
  };
  /** One sample over `over` (the conversation by default). */
  const sample = async (over: ChatMessage[] = messages): Promise<Sampled> => {
    figures.modelTurns++;
    try {
      const r = await ctx.generate({
        role: "searcher",
        system,
        messages: over,
        ...sampling,
        maxOutputTokens: NATIVE_MAX_OUTPUT_TOKENS,
      });
      return { kind: "ok", text: r.text };
    } catch (error) {
      if (isDossierError(error, "CANCELLED") || ctx.signal.aborted) throw error;
      const limit = exceededLimit(error);
      if (limit) return { kind: "stop", reason: `budget:${limit}` };
      const code = isDossierError(error) ? error.code : "error";
      ctx.emit({ type: "warning", code: "SMTL_STEP_FAILED", message: `model call failed (${code})` });
      return { kind: "stop", reason: `error:${code}` };
    }
  };
  /** Counts a malformed reply; the conversation stays as it was, so the step is sampled again. */
  const malformed = (problem: string, text: string) => {
    figures.malformedActions++;
    ctx.emit({
      type: "warning",
      code: "MALFORMED_ACTION",
      message: `malformed reply ${figures.malformedActions} of ${errorBudget}: ${problem}`,
    });
    record("malformed", { error: problem, reply: text.slice(0, 2000) });
    if (figures.malformedActions >= errorBudget) stopReason = "error-budget";
  };
  const tell = (content: string) => messages.push({ role: "user", content });

  /** Runs a reply's tool calls at once; the responses, in the order the calls were written. */
  const runCalls = async (calls: readonly NativeCall[]): Promise<string> => {
    const { limits, used } = ctx.budget.snapshot();
    const room = Math.min(
      MAX_CALLS_PER_STEP,
      limits.maxToolCalls === undefined ? MAX_CALLS_PER_STEP : limits.maxToolCalls - used.toolCalls,
    );
    const step = figures.steps + 1;
    const seen = new Set<string>();
    const plan = calls.map((c) => {
      if (!c.ok) return { c, run: false as const, note: `error: ${c.error}` };
      const key = describeCall(c.call).toLowerCase();
      if (made.has(key) || seen.has(key))
        return {
          c,
          run: false as const,
          note: `not run again: it was made in step ${made.get(key) ?? step}`,
        };
      seen.add(key);
      return { c, run: true as const, note: "" };
    });
    let runnable = 0;
    const batch = plan.map((p) => {
      if (!p.run) return p;
      if (++runnable > Math.max(0, room))
        return { ...p, run: false as const, note: "not run: over the per-step cap or the tool-call budget" };
      return p;
    });
    const toRun = batch.filter((p) => p.run);
    if (toRun.length) {
      figures.steps = step;
      for (const p of toRun) if (p.c.ok) made.set(describeCall(p.c.call).toLowerCase(), step);
      ctx.emit({ type: "phase", phase: "searching", detail: `step ${step}: ${toRun.length} calls` });
    }
    const results = await Promise.all(
      batch.map(async (p) =>
        p.run && p.c.ok ? runAction(ctx, options.tools, toAction(p.c.call), topK, pageWindow) : null,
      ),
    );
    const observed = results.flatMap((o) => o?.evidence ?? []);
    for (const e of observed) retrieved.add(e.id);
    lastObserved = [...new Set(observed.map((e) => e.id))];
    if (toRun.length) {
      figures.toolCalls += toRun.length;
      figures.callsByStep.push(toRun.length);
      ctx.emit({
        type: "step-end",
        step,
        toolCalls: toRun.length,
        failed: results.filter((o) => o && !o.ok).length,
      });
    }
    return batch
      .map((p, i) => {
        const o = results[i];
        return toolResponse(p.c.name, p.c.arguments, o ? observationText(o, ctx.evidence) : p.note);
      })
      .join("\n");
  };

  ctx.emit({ type: "phase", phase: "planning" });
  while (!answer && !stopReason) {
    if (turns >= maxSteps) {
      stopReason = "step-cap";
      break;
    }
    stopReason = guard() ?? startIteration();
    if (stopReason) break;
    if (messages.length > 1 && size() > windows.contextTokens) {
      // The forced refinement: a summary from the whole conversation, then a reset to it.
      const tokensBefore = size();
      const last = messages.at(-1)!;
      const asked = [
        ...messages.slice(0, -1),
        { role: "user" as const, content: `${last.content}\n\n${SUMMARY_NUDGE}` },
      ];
      const r = await sample(asked);
      if (r.kind === "stop") {
        stopReason = r.reason;
        break;
      }
      const summary = formatProblem(r.text) === null ? tagContent(r.text, "summary") : null;
      if (summary) {
        figures.refinements++;
        record("summary", r.text, { forced: true });
      } else
        malformed(formatProblem(r.text) ?? "the reply to the summary request holds no <summary>", r.text);
      const droppedTurns = messages.length - 1;
      messages = [{ role: "user", content: resetMessage(ctx.query, summary) }];
      figures.contextResets++;
      ctx.emit({
        type: "context-reset",
        step: figures.steps,
        droppedTurns,
        tokensBefore,
        tokensAfter: size(),
      });
      if (stopReason) break;
    }
    const r = await sample();
    if (r.kind === "stop") {
      stopReason = r.reason;
      break;
    }
    const problem = formatProblem(r.text);
    if (problem) {
      malformed(problem, r.text);
      continue;
    }
    const found = tagContent(r.text, "answer");
    const calls = parseToolCalls(r.text, tools);
    const plan = tagContent(r.text, "plan");
    const summary = tagContent(r.text, "summary");
    if (found === null && calls.length === 0 && (plan === null) === (summary === null)) {
      malformed("a reply without tool calls or an answer holds exactly one <plan> or <summary>", r.text);
      continue;
    }
    messages.push({ role: "assistant", content: r.text });
    turns++;
    if (found !== null && figures.toolCalls === 0 && !reasked) {
      // An answer before the first tool call: asked once more; insisting ends the run as no research.
      reasked = true;
      record("answer", r.text, { beforeResearch: true });
      ctx.emit({
        type: "warning",
        code: "NO_CALL_YET",
        message: "the agent answered before its first tool call; asked once more",
      });
      tell(NO_CALL_YET);
      continue;
    }
    if (found !== null) {
      record("answer", r.text);
      answer = found;
      break;
    }
    if (calls.length) {
      record("search", r.text, { calls: calls.length });
      const responses = await runCalls(calls);
      if (calls.every((c) => !c.ok)) malformed("every tool call of the reply is malformed", r.text);
      tell(turns % refineEvery === 0 ? `${responses}\n\n${SUMMARY_NUDGE}` : responses);
      continue;
    }
    if (summary !== null) figures.refinements++;
    record(plan !== null ? "plan" : "summary", r.text);
    if (plan !== null && figures.steps === 0)
      ctx.emit({ type: "task-framed", spec: { mode: "smtl-native", plan, ...windows } });
    tell(CONTINUE_MESSAGE);
  }

  figures.toolCallsPerStep = figures.steps ? figures.toolCalls / figures.steps : null;
  const citedOf = (text: string) => evidenceIdsIn(text);
  if (answer !== null) {
    const cited = citedOf(answer);
    const verified = cited.length > 0 && cited.every((id) => retrieved.has(id));
    ctx.emit({
      type: "decision",
      decision: "stop",
      reason: verified
        ? "answered: the answer cites retrieved evidence"
        : "answered: the answer cites no retrieved evidence",
      details: figures,
    });
    requireResearch(ctx, {
      stopReason: "answered",
      why: "the agent answered twice before its first tool call",
    });
    return finishAnswer(ctx, {
      text: answer,
      citations: [],
      verification: [],
      verified,
      plan: null,
      retrieved,
      language: options.language,
      stopReason: "answered",
      figures,
    });
  }
  const reason = stopReason ?? "step-cap";
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: `${reason}: answering from the conversation`,
    details: figures,
  });
  requireResearch(ctx, {
    stopReason: reason,
    ...(figures.steps === 0 ? { why: `the loop stopped (${reason}) before its first tool call` } : {}),
  });
  ctx.emit({ type: "phase", phase: "answering", detail: reason });
  const final = await finalAnswer(ctx, { system, messages, contextTokens: windows.contextTokens, sampling });
  record("final-answer", final, { reason });
  return finishAnswer(ctx, {
    text: final ?? "",
    citations: [],
    verification: [],
    verified: false,
    plan: null,
    retrieved,
    language: options.language,
    stopReason: reason,
    figures,
  });
}

/** The answer from the conversation (the `<answer>` content, else the raw reply); null on failure. */
async function finalAnswer(
  ctx: RunContext,
  input: {
    system: string;
    messages: readonly ChatMessage[];
    contextTokens: number;
    sampling: { temperature: number; topP: number };
  },
): Promise<string | null> {
  const { messages, last } = fitConversation(
    input.messages,
    input.contextTokens - estimateTokens(input.system) - NATIVE_MAX_OUTPUT_TOKENS,
    NATIVE_FINAL_REQUEST,
  );
  try {
    const r = await ctx.generate({
      role: "searcher",
      system: input.system,
      messages: [
        ...messages,
        { role: "user", content: last ? `${last}\n\n${NATIVE_FINAL_REQUEST}` : NATIVE_FINAL_REQUEST },
      ],
      ...input.sampling,
      maxOutputTokens: NATIVE_MAX_OUTPUT_TOKENS,
    });
    return tagContent(r.text, "answer") ?? (r.text.trim() || null);
  } catch (error) {
    if (isDossierError(error, "CANCELLED") || ctx.signal.aborted) throw error;
    const limit = exceededLimit(error);
    ctx.emit({
      type: "warning",
      code: "ANSWER_FALLBACK",
      message: `the answer from the conversation failed (${limit ? `budget:${limit}` : isDossierError(error) ? error.code : "error"}); no answer`,
    });
    return null;
  }
}
