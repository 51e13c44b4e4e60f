/**
 * smtl in SMTL's own tag protocol (`protocol: "native"`, for the released checkpoints; seed:
 * SMTL's inference loop), short-answer mode: the loop of native-loop.ts with the deep-search
 * prompts. `<answer>` is the answer; it is verified when it cites evidence retrieved in the run
 * (and nothing else). At the step cap, the error budget or a budget limit the model answers
 * within `<answer>` from the conversation (its oldest turns dropped to fit; the raw reply when it
 * has no tag). An answer before any tool call, given again when asked once more, fails the run
 * (`NO_RESEARCH`).
 */

import { requireResearch } from "../../kit/research-done.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { type AskOutcome, finishAnswer } from "./answer.ts";
import { finalFromConversation, type NativeLoopOptions, nativeLoop } from "./native-loop.ts";
import { NATIVE_FINAL_REQUEST, nativeSystem, nativeTask, resetMessage } from "./native-prompts.ts";
import { evidenceIdsIn } from "./protocol.ts";

/** Options of {@link runSmtlNative}. */
export type SmtlNativeOptions = NativeLoopOptions;

/** Runs smtl's short-answer mode in the native tag protocol. */
export async function runSmtlNative(ctx: RunContext, options: SmtlNativeOptions): Promise<AskOutcome> {
  return ctx.inScope("smtl", () => answerLoop(ctx, options));
}

async function answerLoop(ctx: RunContext, options: SmtlNativeOptions): Promise<AskOutcome> {
  const system = nativeSystem({
    tools: options.tools.available,
    currentDate: ctx.currentDate,
    language: options.language,
    maxSteps: options.maxSteps ?? 100,
  });
  const end = await nativeLoop(ctx, options, {
    name: "smtl-native",
    system,
    task: nativeTask(ctx.query),
    resetMessage: (summary) => resetMessage(ctx.query, summary),
  });
  const { figures, retrieved } = end;
  const finish = (text: string, verified: boolean, stopReason: string) =>
    finishAnswer(ctx, {
      text,
      citations: [],
      verification: [],
      verified,
      plan: null,
      retrieved,
      language: options.language,
      stopReason,
      figures,
    });
  if (end.answer !== null) {
    const cited = evidenceIdsIn(end.answer);
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
    return finish(end.answer, verified, "answered");
  }
  const reason = end.stopReason ?? "step-cap";
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
  const final = await finalFromConversation(ctx, end, { system, request: NATIVE_FINAL_REQUEST });
  end.record("final-answer", final, { reason });
  return finish(final ?? "", false, reason);
}
