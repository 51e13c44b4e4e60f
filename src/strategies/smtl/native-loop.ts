/**
 * The loop of smtl's native tag protocol (seed: SMTL's inference loop), shared by its two
 * modes — the short answer (native.ts) and the deep-research report (native-research.ts), which
 * differ only in their prompts and in what the `<answer>` holds. One growing conversation; each
 * step the model replies in tags (see native-format.ts), sampled at the seed's temperature 1.0
 * and top-p 0.9 with up to 8,192 output tokens unless the options set them.
 *
 * - A reply that is empty, has an unbalanced tag or does not end with a closing tag is counted
 *   against the error budget (default 10) and sampled again from the same conversation: it is
 *   never added to it.
 * - `<answer>` ends the loop. An answer before the first tool call is sent back once with the
 *   kit's NO_CALL_YET line; the caller fails a run that insists (`NO_RESEARCH`, kit/research-done.ts).
 * - `<tool_call>` blocks (1–5, at most 10 run) run at once; their results return as one message
 *   of `<tool_response>` blocks, a malformed or repeated call answered with an error rather than
 *   dropped; every `refineEvery`-th step (default 5) that message ends with the request for a
 *   `<summary>`. A reply with only `<plan>` or only `<summary>` is followed by the message to go on.
 * - When the conversation reaches the context budget (from the model's window, windows.ts) the
 *   model is asked for a summary, and the conversation is reset to the task and that summary.
 * - The loop ends at `<answer>`, the step cap (replies, as in the seed), the error budget or a
 *   budget limit; the caller then asks for the answer from the conversation ({@link finalFromConversation}).
 */

import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { NO_CALL_YET } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ChatMessage } from "../../llm/client.ts";
import { estimatePromptTokens, estimateTokens } from "../../llm/token-estimate.ts";
import { fitConversation, type SmtlFigures } from "./answer.ts";
import {
  formatProblem,
  NATIVE_MAX_OUTPUT_TOKENS,
  NATIVE_SAMPLING,
  type NativeCall,
  parseToolCalls,
  tagContent,
  toolResponse,
} from "./native-format.ts";
import { CONTINUE_MESSAGE, observationText, SUMMARY_NUDGE } from "./native-prompts.ts";
import { describeCall } from "./protocol.ts";
import { SmtlSteps, startIteration } from "./steps.ts";
import { smtlWindows } from "./windows.ts";

/** Options of the native loop (the strategy's options). */
export interface NativeLoopOptions {
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

/** What a mode gives the loop: its prompts. */
export interface NativeMode {
  /** `task-framed` spec mode (`smtl-native`, `smtl-native-research`). */
  name: string;
  /** The system prompt. */
  system: string;
  /** The first user message. */
  task: string;
  /** The message a context reset leaves, with the last summary if any. */
  resetMessage(summary: string | null): string;
}

/** How the loop ended. */
export interface NativeLoopEnd {
  /** The `<answer>` content, or null when the loop ended without one. */
  answer: string | null;
  /** Why the loop ended without an answer (`step-cap`, `error-budget`, `budget:<limit>`, …). */
  stopReason: string | null;
  /** True when the answer came before any tool call, after the model was asked once more. */
  answeredWithoutResearch: boolean;
  figures: SmtlFigures;
  retrieved: ReadonlySet<string>;
  /** The conversation as it stands (the task message first). */
  messages: readonly ChatMessage[];
  /** The sampling sent on every call. */
  sampling: { temperature: number; topP: number };
  contextTokens: number;
  /** Records a `trajectory-step` after the loop (the answer from the conversation). */
  record(action: string, answer: unknown, extra?: Record<string, unknown>): void;
}

/** What a native model call gave. */
type Sampled = { kind: "ok"; text: string } | { kind: "stop"; reason: string };

/** Runs the native loop of one mode. */
export async function nativeLoop(
  ctx: RunContext,
  options: NativeLoopOptions,
  mode: NativeMode,
): Promise<NativeLoopEnd> {
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
  const { system } = mode;
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
  const steps = new SmtlSteps(ctx, { tools: options.tools, topK, pageWindow }, figures);
  let messages: ChatMessage[] = [{ role: "user", content: mode.task }];
  /** Accepted replies: the seed's step count (the summary nudge and the step cap count them). */
  let turns = 0;
  let stopReason: string | null = null;
  let answer: string | null = null;
  let trajectory = 0;
  /** Whether an answer before the first tool call was sent back once, and whether it came again. */
  let reasked = false;
  let insisted = false;

  const record = (action: string, answer: unknown, extra: Record<string, unknown> = {}) => {
    ctx.emit({
      type: "trajectory-step",
      step: ++trajectory,
      action,
      state: { turn: turns, observations: steps.lastObserved, ...extra },
      answer,
    });
  };
  const size = () => estimatePromptTokens([system, ...messages.map((m) => m.content)]);
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
    const room = steps.room();
    const seen = new Set<string>();
    let runnable = 0;
    const batch = calls.map((c) => {
      if (!c.ok) return { c, run: false, note: `error: ${c.error}` };
      const earlier = steps.madeIn(c.call);
      const key = describeCall(c.call).toLowerCase();
      if (earlier !== undefined || seen.has(key))
        return {
          c,
          run: false,
          note: `not run again: it was made in step ${earlier ?? figures.steps + 1}`,
        };
      seen.add(key);
      if (++runnable > Math.max(0, room))
        return { c, run: false, note: "not run: over the per-step cap or the tool-call budget" };
      return { c, run: true, note: "" };
    });
    const toRun = batch.flatMap((p) => (p.run && p.c.ok ? [p.c.call] : []));
    const observations = toRun.length ? await steps.execute(toRun) : [];
    if (!toRun.length) steps.lastObserved = [];
    let next = 0;
    return batch
      .map((p) => {
        const o = p.run ? observations[next++] : undefined;
        return toolResponse(p.c.name, p.c.arguments, o ? observationText(o, ctx.evidence) : p.note);
      })
      .join("\n");
  };

  ctx.emit({ type: "phase", phase: "planning" });
  while (answer === null && !stopReason) {
    if (turns >= maxSteps) {
      stopReason = "step-cap";
      break;
    }
    stopReason = guard() ?? startIteration(ctx);
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
      messages = [{ role: "user", content: mode.resetMessage(summary) }];
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
      // An answer before the first tool call: asked once more; the caller fails a run that insists.
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
      insisted = figures.toolCalls === 0;
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
      ctx.emit({ type: "task-framed", spec: { mode: mode.name, plan, ...windows } });
    tell(CONTINUE_MESSAGE);
  }
  figures.toolCallsPerStep = figures.steps ? figures.toolCalls / figures.steps : null;
  return {
    answer,
    stopReason,
    answeredWithoutResearch: insisted,
    figures,
    retrieved: steps.retrieved,
    messages,
    sampling,
    contextTokens: windows.contextTokens,
    record,
  };
}

/**
 * The answer from the conversation when the loop ended without one: the model is asked with
 * `request` (its oldest turns dropped to fit) and answers within `<answer>`; the raw reply when
 * it has no tag; null (with an `ANSWER_FALLBACK` warning) when the call failed.
 */
export async function finalFromConversation(
  ctx: RunContext,
  end: NativeLoopEnd,
  input: { system: string; request: string },
): Promise<string | null> {
  const { messages, last } = fitConversation(
    end.messages,
    end.contextTokens - estimateTokens(input.system) - NATIVE_MAX_OUTPUT_TOKENS,
    input.request,
  );
  try {
    const r = await ctx.generate({
      role: "searcher",
      system: input.system,
      messages: [
        ...messages,
        { role: "user", content: last ? `${last}\n\n${input.request}` : input.request },
      ],
      ...end.sampling,
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
