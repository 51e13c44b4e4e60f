/**
 * The framing steps of the graph strategy, each with its fallback: the Router's task
 * specification (fallback: the question as written, warning `ROUTER_FALLBACK`), the fixed
 * outline built from the survey evidence (fallback: one section per objective, warning
 * `OUTLINE_FALLBACK`), and the fixed rubric used when INITPLAN, which writes the persistent
 * rubric (init.ts), fails.
 */

import { isDossierError } from "../../core/errors.ts";
import { createOutline } from "../../core/outline.ts";
import { type PlannedOutline, proposeOutline } from "../../kit/outliner.ts";
import { type ClarifyCallback, routeTask, specToText, type TaskSpec } from "../../kit/router.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { WriterSpec } from "../../kit/writer-brief.ts";
import { failureOf, fallback } from "./fallbacks.ts";

/** The rubric used when the rubricer fails. */
export const FALLBACK_RUBRIC = [
  "- Coverage: every outline section is supported by evidence. Guidance: check each section has cited sources.",
  "- Consistency: figures agree across sources. Guidance: where sources disagree, give both values and their sources.",
  "- Support: each central claim rests on evidence. Guidance: state forecasts with their author and uncertainty.",
].join("\n");

/** Frames the task; the question as written when the router fails. */
export async function frameTask(
  ctx: RunContext,
  options: { language: string; clarify?: ClarifyCallback },
): Promise<TaskSpec> {
  try {
    const { spec, answers } = await routeTask(ctx, options);
    ctx.emit({ type: "task-framed", spec, assumptions: answers.length ? [] : spec.assumptions });
    return spec;
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    fallback(ctx, "ROUTER_FALLBACK", {
      message: `router failed (${failureOf(error)}); the question is taken as written`,
    });
    const spec: TaskSpec = {
      topic: ctx.query,
      objectives: [ctx.query],
      constraints: [],
      timeScope: { description: `as of ${ctx.currentDate}` },
      requiredOutputs: [],
      broadQueries: [ctx.query.slice(0, 200), `${ctx.query.slice(0, 180)} overview`],
      ambiguous: false,
      clarifyingQuestions: [],
      assumptions: ["the router failed; the question is taken as written"],
    };
    ctx.emit({ type: "task-framed", spec, assumptions: spec.assumptions });
    return spec;
  }
}

/**
 * The specification as text for a prompt that already opens with the research question: its
 * `Topic:` line is left out when the topic is the question as asked.
 */
export function specBesideQuestion(specText: string, topic: string, query: string): string {
  const same = topic.trim().toLowerCase() === query.trim().toLowerCase();
  return same ? specText.replace(/^Topic: .*\n?/, "") : specText;
}

/** The writers' view of the specification: constraints, required outputs, time scope. */
export function writerSpec(spec: TaskSpec): WriterSpec {
  const t = spec.timeScope;
  return {
    constraints: spec.constraints,
    requiredOutputs: spec.requiredOutputs,
    timeScope: `${t.description}${t.from || t.to ? ` (${t.from ?? "…"} to ${t.to ?? "…"})` : ""}`,
  };
}

/** The fixed outline from the survey evidence; one section per objective when the writer fails. */
export async function fixOutline(ctx: RunContext, spec: TaskSpec, language: string): Promise<PlannedOutline> {
  try {
    return await proposeOutline(ctx, {
      trace: specToText(spec),
      evidence: ctx.evidence.evidence(),
      language,
    });
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    fallback(ctx, "OUTLINE_FALLBACK", {
      message: `outline failed (${failureOf(error)}); one section per objective`,
    });
    const objectives = spec.objectives.slice(0, 8);
    return {
      title: spec.topic,
      outline: createOutline(objectives.map((o) => ({ title: o.slice(0, 100), plan: o }))),
      evidenceHints: {},
    };
  }
}
