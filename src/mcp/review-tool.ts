/**
 * `research_review`: answers the plan review of a run started with `reviewPlan` that stopped
 * after its plan (status `awaiting-review`; `research_status` shows the plan) — approve it,
 * edit it (the items in the order to run them: an item keeping its id is kept, reworded when
 * its title or description changed; one without an id is added; one left out is removed) or
 * reject it. The run then goes on with exactly that plan (followed by research_status and
 * research_result as before), or ends cancelled. Also the text a status with a plan reads as.
 */

import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import { planEditSchema } from "../core/plan-edit.ts";
import { structuredResult } from "./context.ts";
import { type RunStatusOutput, runStatusOutputSchema } from "./output-schemas.ts";
import { oneLine, planListing } from "./plan-text.ts";
import type { ResearchJobs } from "./research-jobs.ts";
import { defineTool, type ToolDefinition } from "./tool-dispatch.ts";

/** The tool's input: one flat object (the engine checks the answer's shape: INPUT_INVALID). */
export const reviewInputSchema = z.strictObject({
  runId: z
    .string()
    .trim()
    .min(1, "the run id is empty")
    .max(200)
    .describe("the run's id (or a unique prefix of it)"),
  action: z
    .enum(["approve", "edit", "reject"])
    .describe("approve the plan as shown; edit: run `plan` instead; reject: end the run without researching"),
  plan: planEditSchema
    .optional()
    .describe(
      "with edit: the plan's items in the order to run them — {id, title, description?, children?} keeps (and rewords) the item of that id, {title, description?} without an id adds one; an item left out is removed; a description or children left out are kept",
    ),
  reason: z.string().trim().max(500).optional().describe("with reject: why (recorded with the run)"),
});

/** The text of a status: one line, the plan when it awaits review, then what to do next. */
export function statusText(status: RunStatusOutput): string {
  const step = status.progress.message ? ` — ${oneLine(status.progress.message)}` : "";
  const error = status.error ? ` [${status.error.code}] ${status.error.message}` : "";
  const review = status.review
    ? `\nplan (${status.review.kind}${status.review.title ? `; report title: ${oneLine(status.review.title)}` : ""}), awaiting review until ${status.review.deadline}:\n${planListing(status.review)}`
    : "";
  return `run ${status.runId} ${status.status}${step}${error}${review}\n${status.next}`;
}

/** The `research_review` tool over `jobs`. */
export function researchReviewTool(jobs: ResearchJobs): ToolDefinition {
  return defineTool({
    name: "research_review",
    title: "Review a research plan",
    description:
      "Answer the plan review of a research run started with reviewPlan: true, which stops after planning (status awaiting-review; research_status shows the plan with its items' ids and the deadline). action approve runs the plan as shown; edit runs `plan` instead (items in order: keep an item's id to keep it, reword its title or description to change it, leave it out to remove it, give one without an id to add it); reject ends the run without researching. Ask the user before answering: the plan is theirs to approve. Answers at once with the run's status; follow it with research_status and research_result.",
    inputSchema: reviewInputSchema,
    outputSchema: runStatusOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async call({ runId, action, plan, reason }) {
      // An edited plan sent with another action would be dropped unseen: said instead.
      if (plan && action !== "edit") {
        throw new DossierError(
          "INPUT_INVALID",
          `plan is given with action ${action}: use action edit to run it`,
        );
      }
      const answer = { action, ...(plan ? { plan } : {}), ...(reason ? { reason } : {}) };
      const { status } = await jobs.review(runId, answer);
      const did = action === "approve" ? "approved" : action === "edit" ? "edited and approved" : "rejected";
      return structuredResult(status, `plan ${did}: ${statusText(status)}`);
    },
  });
}
