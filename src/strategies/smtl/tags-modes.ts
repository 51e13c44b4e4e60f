/**
 * The two modes of the tag protocol: their prompts, and the final step each takes when the loop
 * ends — a short answer, verified when it cites evidence retrieved in the run (and nothing else),
 * or the report of the `<answer>`, through the shared citation pass. Without an `<answer>` the
 * model answers (or writes the report) from the conversation. A run without research fails
 * (`NO_RESEARCH`): no tool call, or an answer before any tool call given again when asked once more.
 */

import { requireResearch } from "../../kit/research-done.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { evidenceByUrl, resolveUrlCitations, type UrlCitations } from "../../kit/url-citations.ts";
import type { ResearchOutcome } from "../types.ts";
import { finishAnswer, type SmtlFigures } from "./answer.ts";
import { NATIVE_TAGS, type NativeTag, RESEARCH_TAGS } from "./native-format.ts";
import { NATIVE_FINAL_REQUEST, nativeSystem, nativeTask, resetMessage } from "./native-prompts.ts";
import {
  NATIVE_REPORT_REQUEST,
  nativeResearchReset,
  nativeResearchSystem,
  nativeResearchTask,
} from "./native-research-prompts.ts";
import { evidenceReport, researchOutcome } from "./research-report.ts";
import type { SmtlOptions, SmtlState } from "./state.ts";
import { finalFromConversation } from "./tags-final.ts";

/** What a mode gives the tag protocol. */
export interface TagMode {
  /** `task-framed` spec mode (`smtl-native`, `smtl-native-research`). */
  name: string;
  /** True in the deep-research mode (App. D.1's tags). */
  research: boolean;
  /** The tags of the mode. */
  tags: readonly NativeTag[];
  system: string;
  /** The first user message. */
  task: string;
  /** The message a context reset leaves, with the last summary if any. */
  resetMessage(summary: string | null): string;
  /** The final step. */
  finish(s: SmtlState): Promise<ResearchOutcome>;
}

const promptOptions = (ctx: RunContext, options: SmtlOptions) => ({
  tools: options.tools.available,
  currentDate: ctx.currentDate,
  language: options.language,
  maxSteps: options.maxSteps ?? 100,
});

/** The figures as the loop left them, with the calls per step. */
function closeFigures(s: SmtlState): SmtlFigures {
  const figures = s.figures as SmtlFigures;
  figures.toolCallsPerStep = figures.steps ? figures.toolCalls / figures.steps : null;
  return figures;
}

/** What tells the modes apart: their prompts and their final step. */
const MODES = {
  answer: {
    name: "smtl-native",
    system: nativeSystem,
    task: nativeTask,
    reset: resetMessage,
    finish: finishShortAnswer,
  },
  research: {
    name: "smtl-native-research",
    system: nativeResearchSystem,
    task: nativeResearchTask,
    reset: nativeResearchReset,
    finish: finishReport,
  },
} as const;

/** The prompts and the final step of a mode, for a run. */
export function tagMode(mode: keyof typeof MODES, ctx: RunContext, options: SmtlOptions): TagMode {
  const spec = MODES[mode];
  // A checkpoint's own system prompt, when the user supplied it, replaces Dossier's wording.
  const system = options.systemPrompt ?? spec.system(promptOptions(ctx, options));
  return {
    name: spec.name,
    research: mode === "research",
    tags: mode === "research" ? RESEARCH_TAGS : NATIVE_TAGS,
    system,
    task: spec.task(ctx.query),
    resetMessage: (summary) => spec.reset(ctx.query, summary),
    finish: (s) => spec.finish(s, system),
  };
}

async function finishShortAnswer(s: SmtlState, system: string): Promise<ResearchOutcome> {
  const { ctx } = s;
  const figures = closeFigures(s);
  const finish = (text: string, verified: boolean, stopReason: string) =>
    finishAnswer(ctx, {
      text,
      citations: [],
      verification: [],
      verified,
      plan: null,
      retrieved: s.retrieved,
      language: s.options.language,
      stopReason,
      figures,
    });
  if (s.answer !== null) {
    const cites = citeRetrieved(s, s.answer.text);
    const verified = cites.cited.length > 0;
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
    return finish(cites.text, verified, "answered");
  }
  const reason = s.stopReason ?? "step-cap";
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
  const final = await finalFromConversation(s, { system, request: NATIVE_FINAL_REQUEST });
  s.record("final-answer", { turn: s.replies, observations: s.steps.lastObserved, reason }, final);
  return finish(citeRetrieved(s, final ?? "").text, false, reason);
}

async function finishReport(s: SmtlState, system: string): Promise<ResearchOutcome> {
  const { ctx } = s;
  const figures = closeFigures(s);
  const answered = s.answer !== null;
  const reason = answered ? "completed" : (s.stopReason ?? "step-cap");
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: answered ? "answered: the report is written" : `${reason}: writing the report`,
    details: figures,
  });
  requireResearch(ctx, {
    stopReason: reason,
    ...(s.insisted
      ? { why: "the agent answered twice before its first tool call" }
      : figures.steps === 0
        ? { why: `the loop stopped (${reason}) before its first tool call` }
        : {}),
  });
  let text = s.answer?.text ?? null;
  if (text === null) {
    ctx.emit({ type: "phase", phase: "writing", detail: reason });
    text = await finalFromConversation(s, { system, request: NATIVE_REPORT_REQUEST });
    s.record("final-answer", { turn: s.replies, observations: s.steps.lastObserved, reason }, text);
  }
  return researchOutcome(s, text ? citeRetrieved(s, text).text : evidenceReport(s), reason);
}

/**
 * The numbered citations of the agent's text resolved through its References' URLs to the
 * evidence the run retrieved there (url-citations.ts); numbers that resolve to nothing are
 * named in a `CITATION_UNRESOLVED` warning and left for the citation pass to drop and count.
 */
function citeRetrieved(s: SmtlState, text: string): UrlCitations {
  const cites = resolveUrlCitations(text, evidenceByUrl(s.retrieved, s.ctx.evidence));
  if (cites.unresolved.length)
    s.ctx.emit({
      type: "warning",
      code: "CITATION_UNRESOLVED",
      message: `citation(s) ${cites.unresolved.map((n) => `[${n}]`).join(", ")} name no page the run retrieved; dropped`,
    });
  return cites;
}
