/**
 * The end of an smtl run: the short answer with numbered citations, the passages behind them,
 * the run's figures, and a short report (answer + how each goal was verified) assembled by the
 * shared citation pass — so `dossier research --strategy smtl` writes a report like any other
 * strategy, and `ask` reads the same answer from the `answer-ready` event.
 */

import { citationPass } from "../../core/citations.ts";
import { createOutline } from "../../core/outline.ts";
import type { Evidence } from "../../core/source.ts";
import { failureOf } from "../../kit/protocol/sample.ts";
import { assembleReport, type ReportPart } from "../../kit/report-assembly.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ChatMessage } from "../../llm/client.ts";
import { estimatePromptTokens, estimateTokens } from "../../llm/token-estimate.ts";
import type { ResearchOutcome } from "../types.ts";
import { type AskCitation, type AskEvidence, citedPassages } from "./cited-passages.ts";
import { FINAL_REQUEST, finalPrompt, finalSystem } from "./prompts.ts";
import {
  type AnswerReply,
  evidenceId,
  evidenceIdsIn,
  finalReplySchema,
  goalId,
  type SmtlPlan,
} from "./protocol.ts";

export { type AskCitation, type AskEvidence, citedPassages };

/** Figures of an smtl run. */
export interface SmtlFigures {
  /** Tool-calling steps (the plan step included). */
  steps: number;
  toolCalls: number;
  /** toolCalls / steps; null without steps. */
  toolCallsPerStep: number | null;
  /** Tool calls of each step, in order. */
  callsByStep: number[];
  /** Model calls of the agent (plan, steps, refinements; not page reading). */
  modelTurns: number;
  refinements: number;
  contextResets: number;
  malformedActions: number;
  /** The conversation size (estimated tokens) that triggers a reset (from the model's window). */
  contextTokens: number;
  /** Estimated tokens of page text a page read shows the reader. */
  pageTokens: number;
}

/** What the smtl strategy returns: a research outcome with the short answer. */
export interface AskOutcome extends ResearchOutcome {
  /** The concise answer with numbered citations (`[1]`), or "" when none could be given. */
  answer: string;
  /** True when every goal of the plan was verified by retrieved evidence. */
  verified: boolean;
  citations: AskCitation[];
  evidence: AskEvidence[];
  figures: SmtlFigures;
}

/** Options of {@link finishAnswer}. */
export interface FinishOptions {
  /** The answer citing evidence ids. */
  text: string;
  citations: readonly string[];
  verification: AnswerReply["verification"];
  verified: boolean;
  plan: SmtlPlan | null;
  /** Evidence the run retrieved: the only evidence the answer may cite. */
  retrieved: ReadonlySet<string>;
  language: string;
  stopReason: string;
  figures: SmtlFigures;
}

const NO_ANSWER = "No answer could be formed from the evidence gathered.";

/** Builds the outcome and the report, and emits `answer-ready`. */
export function finishAnswer(ctx: RunContext, options: FinishOptions): AskOutcome {
  const allowed = new Set(options.retrieved);
  const inline = evidenceIdsIn(options.text);
  const extra = options.citations.map(evidenceId).filter((id) => !inline.includes(id) && allowed.has(id));
  const text = options.text.trim()
    ? `${options.text.trim()}${extra.length ? ` [${extra.join(", ")}]` : ""}`
    : NO_ANSWER;
  const answerPart: ReportPart = { text, allowed };
  const parts: ReportPart[] = [answerPart];
  const goals = options.plan?.goals ?? [];
  if (goals.length) {
    const byGoal = new Map(options.verification.map((v) => [goalId(v.goal), v.evidence.map(evidenceId)]));
    const lines = goals.map((g) => {
      const ids = (byGoal.get(g.id) ?? []).filter((id) => allowed.has(id));
      return `- ${g.id} (${g.status}) ${g.goal}${ids.length ? ` [${ids.join(", ")}]` : ""}`;
    });
    parts.push({ text: `## Goals\n\n${lines.join("\n")}`, allowed });
  }
  const title = ctx.query.length > 120 ? `${ctx.query.slice(0, 117)}…` : ctx.query;
  const report = assembleReport(ctx, {
    title,
    outline: createOutline([
      { title: "Answer", plan: "the short answer with its citations" },
      ...(goals.length ? [{ title: "Goals", plan: "how each goal of the plan was verified" }] : []),
    ]),
    parts,
    language: options.language,
    stopReason: options.stopReason,
  });

  // The answer is the report's first part, so its numbers are the report's numbers.
  const cited = citationPass({ parts: [answerPart], lookup: ctx.evidence });
  const answer = options.text.trim() ? cited.parts[0]!.trim() : "";
  const byNumber = new Map(report.references.map((r) => [r.number, r]));
  const citations: AskCitation[] = Object.entries(cited.evidenceByNumber).map(([n, ids]) => {
    const ref = byNumber.get(Number(n));
    return { number: Number(n), title: ref?.title ?? "", locator: ref?.locator ?? "", evidence: ids };
  });
  const evidence = citedPassages(
    citations,
    (id) => ctx.evidence.getEvidence(id),
    (id) => ctx.evidence.getSource(id),
  );
  const { figures } = options;
  ctx.emit({
    type: "answer-ready",
    answer,
    verified: options.verified,
    citations,
    evidence: evidence.map((e) => e.id),
    steps: figures.steps,
    toolCalls: figures.toolCalls,
    toolCallsPerStep: figures.toolCallsPerStep,
  });
  return {
    stopReason: options.stopReason,
    report,
    answer,
    verified: options.verified,
    citations,
    evidence,
    figures,
  };
}

/** Evidence for the answer from evidence: passages named in the plan first, then page excerpts, then snippets. */
function evidenceForAnswer(ctx: RunContext, plan: SmtlPlan | null, retrieved: ReadonlySet<string>, max = 60) {
  const named = new Set(evidenceIdsIn(plan?.goals.map((g) => g.analysis ?? "").join(" ") ?? ""));
  const all = [...retrieved].map((id) => ctx.evidence.getEvidence(id)).filter((e): e is Evidence => !!e);
  const rank = (e: Evidence) => (named.has(e.id) ? 0 : e.retrievedBy.tool === "web_search" ? 2 : 1);
  return all
    .map((e, i) => ({ e, i }))
    .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
    .slice(0, max)
    .map(({ e }) => e);
}

/**
 * The conversation as the answer from evidence reads it (seed: the agent's history, oldest turns
 * dropped first, the first message kept): its turns but the last, and the last user message,
 * dropped in assistant/user pairs after the first until it fits `budget` with `extra`.
 */
export function fitConversation(
  turns: readonly ChatMessage[],
  budget: number,
  extra: string,
): { messages: ChatMessage[]; last: string } {
  if (turns.length === 0) return { messages: [], last: "" };
  const [first, ...rest] = turns;
  let kept = [...rest];
  const size = () => estimatePromptTokens([first!.content, ...kept.map((t) => t.content), extra]);
  while (kept.length > 1 && size() > budget) kept = kept.slice(2);
  const all = [first!, ...kept];
  return { messages: all.slice(0, -1), last: all.at(-1)!.content };
}

/**
 * The answer written over the conversation and the evidence gathered when the loop ended
 * without a verified one; null (with an `ANSWER_FALLBACK` warning) when no model answer could
 * be had.
 */
export async function answerFromEvidence(
  ctx: RunContext,
  options: {
    plan: SmtlPlan | null;
    retrieved: ReadonlySet<string>;
    language: string;
    /** The agent's conversation (the task message first). */
    conversation?: readonly ChatMessage[];
    /** Estimated tokens the call may hold (conversation and evidence). */
    contextTokens?: number;
  },
): Promise<{ answer: string; citations: string[] } | null> {
  const evidence = evidenceForAnswer(ctx, options.plan, options.retrieved);
  if (evidence.length === 0) {
    ctx.emit({ type: "warning", code: "ANSWER_FALLBACK", message: "no evidence was gathered; no answer" });
    return null;
  }
  const request = finalPrompt(ctx.query, options.plan, evidence);
  const system = finalSystem(ctx.currentDate, options.language);
  const { messages, last } = fitConversation(
    options.conversation ?? [],
    (options.contextTokens ?? Number.POSITIVE_INFINITY) - estimateTokens(system) - 2048,
    request,
  );
  try {
    const { value } = await ctx.structured({
      role: "searcher",
      schema: finalReplySchema,
      system,
      ...(messages.length ? { messages } : {}),
      prompt: last ? `${last}\n\n${FINAL_REQUEST}\n\n${request}` : request,
      maxOutputTokens: 2048,
    });
    const shown = new Set(evidence.map((e) => e.id));
    return {
      answer: value.answer,
      citations: value.citations.map(evidenceId).filter((id) => shown.has(id)),
    };
  } catch (error) {
    ctx.emit({
      type: "warning",
      code: "ANSWER_FALLBACK",
      message: `the answer from evidence failed (${failureOf(ctx, error)}); no answer`,
    });
    return null;
  }
}
