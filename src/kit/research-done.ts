/**
 * A run is completed only when it did research: it made a tool call or gathered evidence, and
 * when it gathered evidence its report says something beyond headings. A strategy calls
 * {@link requireResearch} where it declares completion; a run that did no research fails with
 * `NO_RESEARCH` — or with `BUDGET_EXCEEDED` when a budget stopped it before it could — instead
 * of ending `completed` with an empty report. (A run whose tool calls gathered no evidence did
 * try: the strategy writes what it can, and the runtime then fails the run with `NO_EVIDENCE`,
 * see runtime/run-did-work.ts.)
 */

import { DossierError } from "../core/errors.ts";
import { headingLines, readMarkdown } from "../core/markdown.ts";
import type { RunContext } from "./run-context.ts";

/** The line a search agent is shown when it wants to finish before its first tool call. */
export const NO_CALL_YET =
  "No tool call has been made yet: nothing has been researched. Issue at least one tool call before finishing.";

/** True when `markdown` has a line of text outside its headings. */
export function hasContent(markdown: string): boolean {
  const doc = readMarkdown(markdown);
  const headings = new Set(doc.headings.flatMap(headingLines));
  return doc.lines.some((l) => !headings.has(l.line) && l.text.trim() !== "");
}

/** True when the run made a tool call (failed ones included) or holds evidence. */
export function didResearch(ctx: Pick<RunContext, "budget" | "evidence">): boolean {
  return ctx.budget.snapshot().used.toolCalls > 0 || ctx.evidence.evidence().length > 0;
}

/** Options of {@link requireResearch}. */
export interface RequireResearchOptions {
  /** The stop reason the strategy would report. */
  stopReason: string;
  /** The report's Markdown body, when the strategy wrote one. */
  body?: string;
  /** What happened, for the error message (e.g. "the search agent finished before its first tool call"). */
  why?: string;
}

/**
 * Throws when the run did no research or wrote no report: `BUDGET_EXCEEDED` (with the limit)
 * when the stop reason is a budget, else `NO_RESEARCH`. Returns quietly otherwise.
 */
export function requireResearch(
  ctx: Pick<RunContext, "budget" | "evidence">,
  options: RequireResearchOptions,
): void {
  const researched = didResearch(ctx);
  const evidence = ctx.evidence.evidence().length;
  const written = options.body === undefined || evidence === 0 || hasContent(options.body);
  if (researched && written) return;
  const what = researched
    ? `no report was written from the ${evidence} evidence item(s) gathered`
    : "no tool call was made and no evidence gathered";
  const details = {
    stopReason: options.stopReason,
    toolCalls: ctx.budget.snapshot().used.toolCalls,
    evidence,
  };
  const limit = /^budget:(.+)$/.exec(options.stopReason)?.[1];
  if (limit)
    throw new DossierError(
      "BUDGET_EXCEEDED",
      `the ${limit} budget ran out before the run did research: ${what}`,
      {
        details: { ...details, limit },
      },
    );
  throw new DossierError(
    "NO_RESEARCH",
    `the run did no research: ${what}${options.why ? ` (${options.why})` : ""}`,
    { details },
  );
}
