/**
 * The `outputSchema` of every MCP tool, and the `structuredContent` they return next to their
 * text: a finished report, a run's status, a short answer, search results and a page.
 */

import { z } from "zod";
import { runStatusSchema } from "../core/run.ts";
import { usageTotalsSchema } from "../core/usage.ts";
import { reportUri } from "./resources.ts";

/** A reference of a report. */
const referenceSchema = z.object({
  number: z.number().int().describe("the citation number [n] in the report"),
  title: z.string(),
  locator: z.string().describe("the URL, or a document's path with its #anchor"),
  kind: z.string().describe("web, paper or local"),
});

/** A finished report (`deep_research`, `research_result`). */
export const reportOutputSchema = z.object({
  runId: z.string(),
  status: runStatusSchema,
  stopReason: z.string().describe("why research stopped: completed, budget:<limit>…"),
  title: z.string(),
  markdown: z.string().describe("the report in Markdown, with numbered citations and its References"),
  references: z.array(referenceSchema),
  resources: z
    .object({ md: z.string(), html: z.string(), json: z.string() })
    .describe("the report as MCP resources (dossier://runs/<id>/report.<format>)"),
  usage: usageTotalsSchema.nullable(),
});
/** A finished report as structured content. */
export type ReportOutput = z.infer<typeof reportOutputSchema>;

const planSubItemOutput = z.object({
  id: z.string().describe("the item's id: keep it in an edit to keep the item"),
  title: z.string(),
  description: z.string().optional(),
  extras: z.record(z.string(), z.unknown()).optional().describe("the strategy's own data: shown, not edited"),
});

/** The plan a run awaits review of (`research_status` while `awaiting-review`). */
export const planReviewOutputSchema = z.object({
  stage: z.enum(["pending", "approved", "edited", "rejected", "timed-out"]),
  deadline: z
    .string()
    .describe("unanswered by then, the run fails (REVIEW_TIMEOUT); it is never approved by itself"),
  kind: z.string().describe("what the items are: subtasks, sections, steps, facets"),
  title: z.string().optional().describe("the report's working title"),
  items: z.array(planSubItemOutput.extend({ children: z.array(planSubItemOutput).optional() })),
  limits: z.object({
    minItems: z.number().int(),
    maxItems: z.number().int(),
    maxChildren: z.number().int().describe("sub-items an item may have (0: none)"),
    childKind: z.string().optional(),
  }),
});
/** A plan awaiting review as structured content. */
export type PlanReviewOutput = z.infer<typeof planReviewOutputSchema>;

/** A run's status (`research_start`, `research_status`, `research_cancel`, `research_review`). */
export const runStatusOutputSchema = z.object({
  runId: z.string(),
  status: runStatusSchema.or(z.literal("cancelling")),
  /** True once the run has ended: completed, failed, cancelled or interrupted (not while awaiting review). */
  done: z.boolean(),
  question: z.string(),
  strategy: z.string(),
  stopReason: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  progress: z
    .object({
      message: z.string().nullable().describe("the last step reported"),
      steps: z.number().int().describe("steps reported so far"),
    })
    .describe("where the run is"),
  usage: usageTotalsSchema.nullable(),
  review: planReviewOutputSchema
    .optional()
    .describe("the plan awaiting review (status awaiting-review): answer it with research_review"),
  next: z.string().describe("what to call next"),
});
/** A run's status as structured content. */
export type RunStatusOutput = z.infer<typeof runStatusOutputSchema>;

/** A short answer (`ask`). */
export const askOutputSchema = z.object({
  runId: z.string(),
  status: runStatusSchema,
  answer: z.string(),
  verified: z.boolean().describe("every goal of the plan was verified by retrieved evidence"),
  citations: z.array(z.object({ number: z.number().int(), title: z.string(), locator: z.string() }).loose()),
  stopReason: z.string(),
});

/** Search results (`search`): web results, papers or local hits. */
export const searchOutputSchema = z.object({
  provider: z.string(),
  results: z.array(
    z
      .object({ title: z.string().optional(), url: z.string().optional(), snippet: z.string().optional() })
      .loose(),
  ),
});

/** A page as read, or a goal-directed reading of it (`fetch`). */
export const fetchOutputSchema = z
  .object({
    kind: z.enum(["page", "reading"]),
    title: z.string().optional(),
    finalUrl: z.string().optional(),
    text: z.string().optional(),
  })
  .loose();

/** The report URIs of a run. */
export function reportResources(runId: string): ReportOutput["resources"] {
  return { md: reportUri(runId, "md"), html: reportUri(runId, "html"), json: reportUri(runId, "json") };
}
