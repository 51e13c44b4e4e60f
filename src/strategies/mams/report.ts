/**
 * The end of a mams run: the report agent's Markdown made into the shared report form — a
 * title line the model added becomes the title, a reference list it wrote is dropped (the
 * citation pass adds the real one), headings start at level 2 — and assembled by the shared
 * citation pass with only the evidence shown to the report agent citable.
 */

import { createOutline, type Outline } from "../../core/outline.ts";
import type { ReportDocument } from "../../core/report.ts";
import { assembleReport } from "../../kit/report-assembly.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { ResearchOutcome } from "../types.ts";

const REFERENCE_HEADING =
  /^#{1,6}\s*(references|reference list|sources|bibliography|works cited|参考文献|参考资料|引用)\b.*$/im;

/** The report text as the shared assembly expects it, and the title it carried. */
export function normalizeReport(markdown: string, fallbackTitle: string): { title: string; body: string } {
  let text = markdown.replace(/\r\n/g, "\n").trim();
  let title = fallbackTitle;
  const h1 = /^#\s+(.+)\n?/.exec(text);
  if (h1) {
    title = h1[1]!.trim();
    text = text.slice(h1[0].length).trim();
  }
  const refs = REFERENCE_HEADING.exec(text);
  if (refs) text = text.slice(0, refs.index).trim();
  const levels = [...text.matchAll(/^(#{1,6})\s/gm)].map((m) => m[1]!.length);
  const shift = levels.length ? 2 - Math.min(...levels) : 0;
  if (shift !== 0)
    text = text.replace(/^(#{1,6})(\s)/gm, (_, hashes: string, space: string) => {
      const level = Math.min(6, Math.max(2, hashes.length + shift));
      return `${"#".repeat(level)}${space}`;
    });
  return { title, body: text };
}

/** A level-1 outline from the report's `##` headings (one section named after the title without any). */
export function outlineOfReport(body: string, title: string): Outline {
  const headings = [...body.matchAll(/^##\s+(.+)$/gm)].map((m) => m[1]!.trim()).filter(Boolean);
  const drafts = (headings.length ? headings : [title]).slice(0, 12).map((t) => ({ title: t, plan: "" }));
  return createOutline(drafts, { minSections: 1, maxSections: 12 });
}

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
  const { title, body } = normalizeReport(options.text, ctx.query);
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
