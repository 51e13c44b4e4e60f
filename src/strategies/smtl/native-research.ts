/**
 * smtl's deep-research mode in SMTL's own tag protocol (`mode: "research"`, `protocol:
 * "native"`): the native loop of native-loop.ts — the ends-with-a-closing-tag validator, the
 * error budget, parallel `<tool_call>` blocks answered by `<tool_response>` blocks, the summary
 * every `refineEvery` steps and at the context budget — with D.1's work in its tags: the
 * `<plan>` lists the subtasks with their fine-grained steps, every reply opens with an
 * analysis, a `<summary>` gives each subtask's status and intermediate answer, and the
 * `<answer>` is the whole report. At the step cap, the error budget or a budget limit the model
 * writes the report within `<answer>` from the conversation (oldest turns dropped to fit). The
 * report goes through the shared citation pass: only evidence retrieved in the run may be cited.
 * A run without research fails (`NO_RESEARCH`): no tool call, an answer before any tool call
 * given again when asked once more, or a report that is only headings.
 */

import { assembleReport } from "../../kit/report-assembly.ts";
import { normalizeReport, outlineOfReport } from "../../kit/report-form.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { extractive } from "../../kit/section-writer.ts";
import type { ResearchOutcome } from "../types.ts";
import { finalFromConversation, type NativeLoopOptions, nativeLoop } from "./native-loop.ts";
import {
  NATIVE_REPORT_REQUEST,
  nativeResearchReset,
  nativeResearchSystem,
  nativeResearchTask,
} from "./native-research-prompts.ts";

/** Runs the deep-research mode in the native tag protocol. */
export async function runSmtlNativeResearch(
  ctx: RunContext,
  options: NativeLoopOptions,
): Promise<ResearchOutcome> {
  return ctx.inScope("smtl", () => researchLoop(ctx, options));
}

async function researchLoop(ctx: RunContext, options: NativeLoopOptions): Promise<ResearchOutcome> {
  const system = nativeResearchSystem({
    tools: options.tools.available,
    currentDate: ctx.currentDate,
    language: options.language,
    maxSteps: options.maxSteps ?? 100,
  });
  const end = await nativeLoop(ctx, options, {
    name: "smtl-native-research",
    system,
    task: nativeResearchTask(ctx.query),
    resetMessage: (summary) => nativeResearchReset(ctx.query, summary),
  });
  const reason = end.answer !== null ? "completed" : (end.stopReason ?? "step-cap");
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: end.answer !== null ? "answered: the report is written" : `${reason}: writing the report`,
    details: end.figures,
  });
  requireResearch(ctx, {
    stopReason: reason,
    ...(end.answeredWithoutResearch
      ? { why: "the agent answered twice before its first tool call" }
      : end.figures.steps === 0
        ? { why: `the loop stopped (${reason}) before its first tool call` }
        : {}),
  });
  let text = end.answer;
  if (text === null) {
    ctx.emit({ type: "phase", phase: "writing", detail: reason });
    text = await finalFromConversation(ctx, end, { system, request: NATIVE_REPORT_REQUEST });
    end.record("final-answer", text, { reason });
  }
  if (!text) {
    // No report could be had: the evidence gathered, listed.
    const evidence = [...end.retrieved]
      .map((id) => ctx.evidence.getEvidence(id))
      .filter((e) => e !== undefined);
    text = `## Evidence gathered\n\n${extractive(evidence, 12)}`;
  }
  const { title, body } = normalizeReport(text, ctx.query);
  const report = assembleReport(ctx, {
    title,
    outline: outlineOfReport(body, title),
    parts: [{ text: body, allowed: end.retrieved }],
    language: options.language,
    stopReason: reason,
  });
  requireResearch(ctx, { stopReason: reason, body: report.body });
  return { stopReason: reason, report };
}
