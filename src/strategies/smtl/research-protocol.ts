/**
 * smtl's deep-research protocol as data (seed: SMTL App. D.1, "System Prompt for Deep Research
 * Tasks"): a subtask list before any tool call; for each subtask in turn, an analysis before
 * every action, a plan of fine-grained steps when it starts, 1–5 parallel tool calls per step
 * until it is answerable, then a definitive subtask answer citing retrieved evidence; after the
 * last subtask, the report synthesised from the subtask answers.
 */

import { z } from "zod";
import type { ResearchToolName } from "../../kit/research-tools.ts";
import { callSchemaFor, evidenceId, evidenceIdsIn, MAX_CALLS_PER_STEP } from "./protocol.ts";

/** Subtasks a list holds at most. */
export const MAX_SUBTASKS = 8;

/** One subtask of the list. */
export interface Subtask {
  /** `S1`, `S2`, … */
  id: string;
  title: string;
  goal: string;
  /** The definitive answer once the subtask is done (citing evidence ids). */
  answer?: string;
  /** Evidence ids the answer cites. */
  citations?: string[];
}

/** The first reply: the subtask list (no tool call before it). */
export const subtaskListSchema = z.object({
  analysis: z.string().describe("how the question breaks down"),
  subtasks: z
    .array(
      z.object({
        title: z.string().min(3).describe("short name of the subtask"),
        goal: z.string().min(5).describe("what it must establish, clear and independent of the others"),
      }),
    )
    .min(1)
    .max(MAX_SUBTASKS)
    .describe("the clear, independent subtasks that together answer the question"),
});

const subtaskAnswerShape = z.object({
  text: z
    .string()
    .min(1)
    .describe("the intermediate, definitive answer of the subtask, citing evidence ids like [E4]"),
  citations: z.array(z.string()).min(1).describe("evidence ids supporting it, e.g. E4"),
});

/** A step within the current subtask: analysis first, then tool calls or the subtask's answer. */
export function subtaskStepSchema(tools: readonly ResearchToolName[]) {
  return z.object({
    analysis: z.string().min(1).describe("reasoning, arguments and next steps, before any plan or call"),
    plan: z
      .array(z.string().min(3))
      .max(10)
      .default([])
      .describe("the subtask's fine-grained steps: give them when the subtask starts, or to revise them"),
    calls: z
      .array(callSchemaFor(tools))
      .max(MAX_CALLS_PER_STEP)
      .default([])
      .describe("1-5 tool calls to run at once for this subtask; none when giving the subtask answer"),
    subtaskAnswer: subtaskAnswerShape
      .nullish()
      .describe("the subtask's answer once it is answerable; then no calls"),
  });
}
/** A step's reply. */
export type SubtaskStep = z.infer<ReturnType<typeof subtaskStepSchema>>;

/** The final reply: the report. */
export const researchReportSchema = z.object({
  report: z
    .string()
    .min(1)
    .describe(
      "the report in Markdown: an introduction, sections as ## headings (organised by subtask where that fits), a conclusion; every key statement cites evidence ids like [E4]; no reference list",
    ),
});

/** Why a subtask answer cannot be accepted, or null: it must cite evidence retrieved in the run. */
export function subtaskAnswerProblem(
  answer: z.infer<typeof subtaskAnswerShape>,
  retrieved: ReadonlySet<string>,
): string | null {
  const cited = [...answer.citations.map(evidenceId), ...evidenceIdsIn(answer.text)];
  const unknown = [...new Set(cited.filter((id) => !retrieved.has(id)))];
  if (unknown.length)
    return `the subtask answer cites evidence that was never retrieved: ${unknown.join(", ")}`;
  if (cited.length === 0) return "the subtask answer cites no evidence";
  return null;
}
