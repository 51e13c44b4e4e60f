/**
 * The Router (graph strategy): turns the question into a task specification — topic,
 * objectives, constraints, language, a time scope resolved against the run's date, required
 * outputs — and, when the question is ambiguous, 1–3 clarifying questions. With a
 * clarification callback (interactive use) the answers go into the specification; without one
 * the assumptions made are recorded instead.
 */

import { z } from "zod";
import { languageName } from "./language.ts";
import type { RunContext } from "./run-context.ts";

/** The task specification. */
export const taskSpecSchema = z.object({
  topic: z.string().min(3).describe("the research topic in one line"),
  objectives: z.array(z.string().min(3)).min(1).max(8).describe("what the report must establish"),
  constraints: z
    .array(z.string())
    .max(8)
    .default([])
    .describe("explicit limits: regions, sectors, sources, length…"),
  timeScope: z
    .object({
      from: z.string().optional().describe("start date YYYY-MM-DD, if the question implies one"),
      to: z.string().optional().describe("end date YYYY-MM-DD, if the question implies one"),
      description: z.string().describe("the time scope in words, resolved against today's date"),
    })
    .describe("the period the question is about"),
  requiredOutputs: z
    .array(z.string())
    .max(6)
    .default([])
    .describe("deliverables asked for: a comparison table, a timeline, recommendations…"),
  broadQueries: z
    .array(z.string().min(2))
    .min(2)
    .max(3)
    .describe("2–3 broad search queries that map the research space"),
  ambiguous: z.boolean().describe("true when the question can reasonably be read in clearly different ways"),
  clarifyingQuestions: z
    .array(z.string())
    .max(3)
    .default([])
    .describe("1–3 questions that would resolve the ambiguity"),
  assumptions: z.array(z.string()).max(6).default([]).describe("assumptions made to proceed without answers"),
});
/** The task specification. */
export type TaskSpec = z.infer<typeof taskSpecSchema>;

/** Asks the user clarifying questions; resolves to their answers (same order). */
export type ClarifyCallback = (questions: string[]) => Promise<string[]>;

function routerSystem(ctx: Pick<RunContext, "currentDate">, language: string): string {
  return [
    "You are the router of a research system. Read the user's research question and write a precise task",
    'specification that planners and writers will follow. Resolve relative time ("recent", "last two years",',
    `"this year") into explicit dates using today's date, ${ctx.currentDate}. Note explicit constraints and any`,
    "deliverables the user asks for. Mark the question ambiguous only if reasonable readings would lead to",
    "substantially different reports; then give clarifying questions and the assumptions you would otherwise make.",
    `Write the specification in ${languageName(language)}.`,
  ].join("\n");
}

/** Frames the task; with `clarify`, asks the user when the question is ambiguous. */
export async function routeTask(
  ctx: RunContext,
  options: { language: string; clarify?: ClarifyCallback },
): Promise<{ spec: TaskSpec; answers: string[] }> {
  const system = routerSystem(ctx, options.language);
  const first = await ctx.structured({
    role: "router",
    schema: taskSpecSchema,
    system,
    prompt: `Research question:\n<question>\n${ctx.query}\n</question>`,
    maxOutputTokens: 1500,
  });
  const spec = first.value;
  if (!spec.ambiguous || spec.clarifyingQuestions.length === 0 || !options.clarify)
    return { spec, answers: [] };
  const questions = spec.clarifyingQuestions.slice(0, 3);
  const answers = await options.clarify(questions);
  const qa = questions.map((q, i) => `Q: ${q}\nA: ${answers[i]?.trim() || "(no answer)"}`).join("\n");
  const second = await ctx.structured({
    role: "router",
    schema: taskSpecSchema,
    system,
    prompt: `Research question:\n<question>\n${ctx.query}\n</question>\n\nThe user answered your clarifying questions:\n${qa}\n\nWrite the final specification; it is no longer ambiguous.`,
    maxOutputTokens: 1500,
  });
  return { spec: { ...second.value, ambiguous: false, clarifyingQuestions: [] }, answers };
}

/** The specification as prompt text. */
export function specToText(spec: TaskSpec): string {
  return [
    `Topic: ${spec.topic}`,
    `Objectives: ${spec.objectives.join("; ")}`,
    spec.constraints.length ? `Constraints: ${spec.constraints.join("; ")}` : "",
    `Time scope: ${spec.timeScope.description}${spec.timeScope.from || spec.timeScope.to ? ` (${spec.timeScope.from ?? "…"} to ${spec.timeScope.to ?? "…"})` : ""}`,
    spec.requiredOutputs.length ? `Required outputs: ${spec.requiredOutputs.join("; ")}` : "",
    spec.assumptions.length ? `Assumptions: ${spec.assumptions.join("; ")}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}
