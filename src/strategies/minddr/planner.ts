/**
 * The Planning agent (minddr): analyses the intent of the question — what is really asked, its
 * constraints and the outputs it requires — and splits it into 3–8 independent subtasks, each
 * with a goal and seed search queries.
 *
 * Fallback (in the strategy): without a valid plan the question is researched as one subtask
 * (warning `PLAN_FALLBACK`).
 */

import { z } from "zod";
import { languageName } from "../../kit/language.ts";
import type { RunContext } from "../../kit/run-context.ts";

/** A subtask as the planner proposes it. */
export const subtaskSchema = z.object({
  title: z.string().min(3).describe("short name of the subtask"),
  goal: z.string().min(10).describe("what this subtask must find out, concretely"),
  queries: z.array(z.string().min(2)).min(1).max(4).describe("1–4 first search queries for this subtask"),
});
/** A subtask as the planner proposes it. */
export type Subtask = z.infer<typeof subtaskSchema>;

/** The planner's answer. */
export const researchPlanSchema = z.object({
  intent: z
    .string()
    .min(10)
    .describe("what the user really wants to know, the scope and the expected deliverable"),
  title: z.string().min(3).describe("a working title for the report"),
  constraints: z
    .array(z.string())
    .default([])
    .describe("constraints the report must respect: scope, region, time span, audience; empty if none"),
  requiredOutputs: z
    .array(z.string())
    .default([])
    .describe("outputs the question asks for explicitly, e.g. a comparison table; empty if none"),
  subtasks: z
    .array(subtaskSchema)
    .min(3)
    .max(8)
    .describe("3–8 independent subtasks that together answer the question; none depends on another"),
});
/** The planner's answer. */
export type ResearchPlan = z.infer<typeof researchPlanSchema>;

/** Options of {@link planResearch}. */
export interface PlanOptions {
  language: string;
  /** Tools the searchers will have, so the plan fits them. */
  tools: readonly string[];
}

/** Builds the planner's instructions. */
export function plannerSystem(ctx: Pick<RunContext, "currentDate">, options: PlanOptions): string {
  return [
    "You are the planning agent of a research team. Your job is to understand a research question and split it into",
    "independent subtasks that separate search agents can pursue in parallel without talking to each other.",
    `Today's date is ${ctx.currentDate}; resolve relative time ("recent", "last year", "this quarter") against it.`,
    "Each subtask needs a concrete goal and first search queries. Together the subtasks must cover the question:",
    "background and current state, quantitative evidence, comparisons, stakeholders, risks and outlook where relevant.",
    "Avoid overlap between subtasks and avoid subtasks that only summarise others.",
    "Name the constraints the question sets and the outputs it asks for explicitly (e.g. a table, a ranking).",
    `The searchers can use: ${options.tools.join(", ")}. Write queries that suit them.`,
    `Write titles and goals in ${languageName(options.language)}; queries may use whatever language finds the best sources.`,
  ].join("\n");
}

/** Plans the research; throws STRUCTURED_OUTPUT_FAILED when no valid plan comes back. */
export async function planResearch(ctx: RunContext, options: PlanOptions): Promise<ResearchPlan> {
  const { value } = await ctx.structured({
    role: "planner",
    schema: researchPlanSchema,
    system: plannerSystem(ctx, options),
    prompt: `Research question:\n<question>\n${ctx.query}\n</question>`,
    maxOutputTokens: 2000,
  });
  return value;
}
