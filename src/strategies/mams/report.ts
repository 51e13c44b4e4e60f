/**
 * The end of a mams run: the report agent's Markdown made into the shared report form — a
 * title line the model added becomes the title, a reference list it wrote is dropped (the
 * citation pass adds the real one), headings start at level 2 — and assembled by the shared
 * citation pass with only the evidence shown to the report agent citable. The paper's citation
 * form, `<sup>[n]</sup>` with a References list, is accepted and mapped to evidence by URL.
 */

import type { ReportDocument } from "../../core/report.ts";
import { assembleReport } from "../../kit/report-assembly.ts";
import { normalizeReport, outlineOfReport } from "../../kit/report-form.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { evidenceByUrl, resolveUrlCitations } from "../../kit/url-citations.ts";
import type { ResearchOutcome } from "../types.ts";

/** Options of {@link finishMamsReport}. */
export interface FinishMamsOptions {
  text: string;
  /** Evidence ids shown to the report agent. */
  allowed: ReadonlySet<string>;
  language: string;
  stopReason: string;
  notice?: string;
}

/** Assembles the final report and returns the outcome. */
export function finishMamsReport(ctx: RunContext, options: FinishMamsOptions): ResearchOutcome {
  // The paper's report agent cites `<sup>[n]</sup>` with a References list (App. C.8): numbers
  // are resolved through the entries' URLs to the evidence shown; evidence ids pass as they are.
  const cites = resolveUrlCitations(options.text, evidenceByUrl(options.allowed, ctx.evidence));
  if (cites.unresolved.length)
    ctx.emit({
      type: "warning",
      code: "CITATION_UNRESOLVED",
      message: `citation(s) ${cites.unresolved.map((n) => `[${n}]`).join(", ")} name no page shown to the report agent; dropped`,
    });
  const { title, body } = normalizeReport(cites.text, ctx.query);
  const outline = outlineOfReport(body, title);
  const report: ReportDocument = assembleReport(ctx, {
    title,
    outline,
    parts: [{ text: body, allowed: options.allowed }],
    language: options.language,
    stopReason: options.stopReason,
    ...(options.notice ? { notice: options.notice } : {}),
  });
  return { stopReason: options.stopReason, report };
}
