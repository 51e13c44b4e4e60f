/**
 * Assembling the final report from written parts, shared by every strategy: the citation pass
 * (only evidence given to each writer call may be cited; sources numbered by first appearance;
 * References appended), table repair, and the report checks — heading hierarchy, temporal
 * statements, language and grounding — whose figures are stored with the report.
 */

import { type CitationPart, citationPass } from "../core/citations.ts";
import type { Outline } from "../core/outline.ts";
import type { ReportChecks, ReportDocument } from "../core/report.ts";
import { safeMarkdown } from "../core/safe-markdown.ts";
import { stripControlChars } from "../core/terminal-text.ts";
import { runReportChecks } from "../eval/checks/report-checks.ts";
import { repairTablesDetailed } from "../eval/checks/tables.ts";
import { groundingCheck } from "../eval/grounding.ts";
import { reportLabel } from "./language.ts";
import type { RunContext } from "./run-context.ts";

/** A piece of the report in reading order. */
export interface ReportPart {
  /** Markdown text (headings allowed), citing evidence ids. */
  text: string;
  /** Evidence ids the writer of this text was given, or "all". */
  allowed: ReadonlySet<string> | "all";
}

/** Options of {@link assembleReport}. */
export interface AssembleOptions {
  title: string;
  outline: Outline;
  parts: readonly ReportPart[];
  language: string;
  stopReason: string;
  notice?: string;
}

/** Builds the final report document. */
export function assembleReport(ctx: RunContext, options: AssembleOptions): ReportDocument {
  const parts: CitationPart[] = options.parts.map((p) => ({ text: p.text, allowed: p.allowed }));
  const cited = citationPass({
    parts,
    lookup: ctx.evidence,
    referencesHeading: reportLabel("references", options.language),
    language: options.language,
  });
  const repaired = repairTablesDetailed(cited.body);
  // Untrusted text stays text: raw HTML escaped, only http(s)/mailto/#… link targets, no control characters.
  const title = stripControlChars(options.title).replace(/\s+/g, " ").trim();
  const body = safeMarkdown(`# ${title}\n\n${repaired.markdown.trim()}\n`);
  const markdown = cited.referencesMarkdown ? `${body}\n${safeMarkdown(cited.referencesMarkdown)}` : body;

  const {
    tables: tablesAfter,
    headings,
    temporal,
    language,
    figures,
  } = runReportChecks(body, {
    currentDate: ctx.currentDate,
    expectedLanguage: options.language,
  });
  const excerpts = new Map<number, string>();
  for (const [n, ids] of Object.entries(cited.evidenceByNumber)) {
    excerpts.set(Number(n), ids.map((id) => ctx.evidence.getEvidence(id)?.text ?? "").join(" "));
  }
  const grounding = groundingCheck(body, excerpts);

  const byReason: Record<string, number> = {};
  for (const issue of cited.issues) byReason[issue.reason] = (byReason[issue.reason] ?? 0) + 1;
  const checks: ReportChecks = {
    citations: { kept: cited.citationCount, dropped: cited.issues.length, byReason },
    groundedShare: grounding.share,
    grounding: { sentences: grounding.sentences.length, supported: grounding.supported },
    tables: { total: tablesAfter.total, valid: tablesAfter.valid, repaired: repaired.repaired.length },
    headings: {
      problems: headings.errors,
      details: headings.problems.map((p) => `line ${p.line}: ${p.message}`),
      titles: figures.headings.titles,
    },
    temporal: {
      predictive: figures.temporal.predictive,
      flagged: temporal.flagged.length,
      errorRate: figures.temporal.errorRate,
      details: temporal.flagged.map((f) => f.sentence),
    },
    language: {
      expected: options.language,
      detected: language?.detected ?? "und",
      share: language?.share ?? null,
    },
  };

  return {
    runId: ctx.runId,
    query: ctx.query,
    strategy: ctx.options.strategy,
    title,
    createdAt: new Date(ctx.clock.now()).toISOString(),
    currentDate: ctx.currentDate,
    language: options.language,
    outline: options.outline,
    markdown,
    body,
    references: cited.references,
    evidenceByNumber: cited.evidenceByNumber,
    sources: ctx.evidence.sources(),
    evidence: ctx.evidence.evidence(),
    checks,
    usage: ctx.usage(),
    stopReason: options.stopReason,
    ...(options.notice ? { notice: options.notice } : {}),
  };
}
