/**
 * The end of a deep-research run, in either protocol: the report the agent wrote goes through
 * the shared citation pass (only evidence retrieved in the run may be cited); without one, the
 * evidence gathered stands listed. A report that is only headings fails the run (`NO_RESEARCH`).
 */

import { assembleReport } from "../../kit/report-assembly.ts";
import { normalizeReport, outlineOfReport } from "../../kit/report-form.ts";
import { requireResearch } from "../../kit/research-done.ts";
import { extractive } from "../../kit/section-writer.ts";
import type { ResearchOutcome } from "../types.ts";
import type { SmtlState } from "./state.ts";

/** The report of a run from the Markdown the agent wrote. */
export function researchOutcome(s: SmtlState, text: string, reason: string): ResearchOutcome {
  const { ctx } = s;
  const { title, body } = normalizeReport(text, ctx.query);
  const report = assembleReport(ctx, {
    title,
    outline: outlineOfReport(body, title),
    parts: [{ text: body, allowed: s.retrieved }],
    language: s.options.language,
    stopReason: reason,
  });
  requireResearch(ctx, { stopReason: reason, body: report.body });
  return { stopReason: reason, report };
}

/** The evidence gathered, listed: the report when no other could be had. */
export function evidenceReport(s: SmtlState): string {
  const evidence = [...s.retrieved]
    .map((id) => s.ctx.evidence.getEvidence(id))
    .filter((e) => e !== undefined);
  return `## Evidence gathered\n\n${extractive(evidence, 12)}`;
}
