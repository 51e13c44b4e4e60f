/**
 * The documented fallback of every role of the graph strategy. No single role's failure ends
 * a run without a report: each failure takes the fallback below and is recorded as a
 * `warning` event with the role's code, so the audit trail shows what was skipped.
 *
 * | role (script name)            | fallback                                                           | code                |
 * |-------------------------------|--------------------------------------------------------------------|---------------------|
 * | router                        | the question as written, two broad queries from it                 | ROUTER_FALLBACK     |
 * | outline writer                | one level-1 section per objective of the specification             | OUTLINE_FALLBACK    |
 * | persistent rubric             | a fixed coverage / consistency / support rubric                    | RUBRIC_FALLBACK     |
 * | initial planner (INITPLAN)    | one search node per level-1 section no search node serves          | INITPLAN_FALLBACK   |
 * | planner (re-plan)             | the plan is kept and the ready frontier runs                       | PLANNER_FAILED      |
 * | critic (reflection gate)      | the actions pass unchecked                                         | gate-skipped        |
 * | revision of rejected actions  | the actions run as they were                                       | REVISION_FAILED     |
 * | inner search step             | round 1: the node's own goal is searched; later: the agent stops  | INNER_STEP_FAILED   |
 * | inner agent's summary         | an extractive, cited list of the node's best evidence              | SUB_REPORT_FALLBACK |
 * | page reader (crawl_page)      | the failed read is an observation; the agent plans around it      | (a failed tool-end) |
 * | llm node (consolidation)      | the node fails; its dependencies' evidence stays usable            | CONSOLIDATE_FAILED  |
 * | ephemeral rubric              | no gaps this cycle; the loop goes on (never stops on a failure)    | GAPS_FALLBACK       |
 * | section writer                | an extractive, cited summary of the section's evidence             | SECTION_FALLBACK    |
 * | coherence pass                | no introduction or conclusion; the sections stand as written       | COHERENCE_SKIPPED   |
 *
 * A budget limit is not a failure: the strategy stops exploring and writes (stopReason names
 * the limit). Cancellation always propagates.
 */

import type { RunContext } from "../../kit/run-context.ts";

/** Warning codes of the graph strategy's fallbacks (the summary and coherence codes are the shared agents'). */
export const GRAPH_FALLBACK_CODES = [
  "ROUTER_FALLBACK",
  "OUTLINE_FALLBACK",
  "RUBRIC_FALLBACK",
  "INITPLAN_FALLBACK",
  "PLANNER_FAILED",
  "gate-skipped",
  "REVISION_FAILED",
  "INNER_STEP_FAILED",
  "SUB_REPORT_FALLBACK",
  "CONSOLIDATE_FAILED",
  "GAPS_FALLBACK",
  "SECTION_FALLBACK",
  "COHERENCE_SKIPPED",
] as const;

/** A fallback warning code. */
export type GraphFallbackCode = (typeof GRAPH_FALLBACK_CODES)[number];

/** Records that a role took its fallback. */
export function fallback(
  ctx: Pick<RunContext, "emit">,
  code: GraphFallbackCode,
  options: { message: string },
): void {
  ctx.emit({ type: "warning", code, message: options.message });
}

/** A short description of why a call failed, for a warning message. */
export function failureOf(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string")
    return error.code;
  return "error";
}
