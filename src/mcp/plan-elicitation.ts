/**
 * Plan review through MCP elicitation (`elicitation/create`, form mode), for clients that
 * declare the capability: the user sees the plan a run stopped after and answers in a form of
 * flat fields — a decision (approve or reject), the plan as editable lines (one item per line,
 * see plan-text.ts) and a reason for a rejection. Approving lines that changed is an edit;
 * approving them unchanged approves the plan as proposed. An answer the engine refuses (an edit
 * outside the plan's limits) is asked again with the reason, a few times. A form declined or
 * cancelled answers nothing: the run stays awaiting review (research_status shows the plan,
 * research_review answers it) until its deadline — a review is never approved by default.
 */

import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { isDossierError } from "../core/errors.ts";
import type { PlanAnswer } from "../core/plan-edit.ts";
import type { ReviewPlan } from "../core/review-plan.ts";
import type { PlanReviewView } from "../runtime/plan-review.ts";
import { editChangesNothing, editOfLines, oneLine, planLines, planListing } from "./plan-text.ts";

/** How many times a form is asked when the engine refuses its answer. */
export const ELICIT_ATTEMPTS = 3;

/** True when a client with these capabilities takes form elicitation requests. */
export function canElicit(capabilities: { elicitation?: { form?: object } } | undefined): boolean {
  return capabilities?.elicitation?.form !== undefined;
}

/** "subtasks" → "subtask". */
const singular = (kind: string) => (kind.endsWith("s") ? kind.slice(0, -1) : kind) || "item";

/** The form's fields as the client sends them back. */
const formAnswerSchema = z.object({
  decision: z.enum(["approve", "reject"]),
  plan: z.string().max(40_000).optional(),
  reason: z.string().max(500).optional(),
});

/** The elicitation request for a run's plan review; `problem` says why an earlier answer was refused. */
export function reviewRequest(
  view: PlanReviewView,
  question: string,
  options: { problem?: string; lines?: string } = {},
): ElicitRequestFormParams {
  const { plan } = view;
  const one = singular(plan.kind);
  const child = plan.limits.childKind ?? "sub-item";
  const nesting =
    plan.limits.maxChildren > 0
      ? ` A line indented under an item (as "  - [id] text") is one of its ${child}s (at most ${plan.limits.maxChildren} an item).`
      : "";
  const message = [
    ...(options.problem ? [`Your last answer was refused: ${oneLine(options.problem)}`, ""] : []),
    `Research run ${view.runId} stopped after planning: ${oneLine(question)}`,
    `Review its plan before anything is researched — approve it (as it is, or with the plan field edited) or reject it. Unanswered, the run fails at ${view.deadline}; it is never approved by itself.`,
    "",
    `The plan (${plan.kind}, ${plan.strategy}${plan.title ? `; report title: ${oneLine(plan.title)}` : ""}):`,
    planListing(plan),
  ].join("\n");
  return {
    mode: "form",
    message,
    requestedSchema: {
      type: "object",
      properties: {
        decision: {
          type: "string",
          title: "Decision",
          description:
            "approve: run the plan as the plan field has it; reject: end the run without researching",
          enum: ["approve", "reject"],
          default: "approve",
        },
        plan: {
          type: "string",
          title: `The plan, one ${one} per line`,
          description: `In the order to run them (${plan.limits.minItems}–${plan.limits.maxItems} ${plan.kind}). Keep a line's [id] to keep that ${one} (change its text to reword it), delete a line to remove it, write a line without an [id] to add one.${nesting}`,
          default: options.lines ?? planLines(plan),
        },
        reason: {
          type: "string",
          title: "Reason (when rejecting)",
          maxLength: 500,
        },
      },
      required: ["decision"],
    },
  };
}

/**
 * The answer a submitted form makes: reject (with its reason), approve (the lines unchanged or
 * left out) or edit. Null when the form was declined or cancelled. INPUT_INVALID-free: the
 * engine checks an edit against the plan's limits.
 */
export function answerOfForm(result: ElicitResult, plan: ReviewPlan): PlanAnswer | null {
  if (result.action !== "accept") return null;
  const form = formAnswerSchema.safeParse(result.content ?? {});
  if (!form.success) return null;
  const { decision, plan: lines, reason } = form.data;
  if (decision === "reject") {
    const why = reason?.trim();
    return { action: "reject", ...(why ? { reason: why } : {}) };
  }
  if (lines === undefined || lines.trim() === planLines(plan).trim()) return { action: "approve" };
  const edit = editOfLines(lines, plan);
  return editChangesNothing(edit, plan) ? { action: "approve" } : { action: "edit", plan: edit };
}

const NOT_ANSWERED = {
  accept: "sent without a decision",
  decline: "declined",
  cancel: "cancelled",
} as const;

/** How a review asked through elicitation ended. */
export type ElicitedReview<T> =
  | { answered: true; answer: PlanAnswer; outcome: T }
  /** Not answered here: the form was declined or cancelled, could not be asked, or was refused every time. */
  | { answered: false; why: string };

/** What {@link elicitReview} works with. */
export interface ElicitReviewOptions<T> {
  view: PlanReviewView;
  question: string;
  /** Sends one elicitation request (the transport's timeout and the signal are the caller's). */
  ask(params: ElicitRequestFormParams): Promise<ElicitResult>;
  /** Records an answer (the engine checks it: INPUT_INVALID for an edit it refuses). */
  submit(answer: PlanAnswer): Promise<T>;
}

/**
 * Asks the user to review `view`'s plan and records the answer; an edit the engine refuses is
 * asked again with the reason ({@link ELICIT_ATTEMPTS} times in all). Any other error of the
 * answer (the run answered elsewhere meanwhile, its deadline passed) is the caller's.
 */
export async function elicitReview<T>(options: ElicitReviewOptions<T>): Promise<ElicitedReview<T>> {
  let problem: string | undefined;
  let lines: string | undefined;
  for (let attempt = 0; attempt < ELICIT_ATTEMPTS; attempt++) {
    let result: ElicitResult;
    try {
      result = await options.ask(
        reviewRequest(options.view, options.question, {
          ...(problem ? { problem } : {}),
          ...(lines !== undefined ? { lines } : {}),
        }),
      );
    } catch (error) {
      return { answered: false, why: `the review could not be asked: ${(error as Error).message}` };
    }
    const answer = answerOfForm(result, options.view.plan);
    if (!answer) return { answered: false, why: `the review form was ${NOT_ANSWERED[result.action]}` };
    try {
      return { answered: true, answer, outcome: await options.submit(answer) };
    } catch (error) {
      if (!isDossierError(error) || error.code !== "INPUT_INVALID") throw error;
      problem = error.message;
      const sent = (result.content as { plan?: unknown } | undefined)?.plan;
      lines = typeof sent === "string" ? sent : undefined;
    }
  }
  return { answered: false, why: `the edited plan was refused ${ELICIT_ATTEMPTS} times: ${problem}` };
}
