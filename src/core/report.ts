/**
 * The report document: the pivot every strategy produces and every renderer reads
 * (Markdown, HTML, JSON bundle).
 */

import type { Reference } from "./citations.ts";
import type { ClaimVerification } from "./claim-verdicts.ts";
import type { Outline } from "./outline.ts";
import type { Evidence, Source } from "./source.ts";
import type { UsageTotals } from "./usage.ts";

/** Figures of the report checks. */
export interface ReportChecks {
  /** Citations dropped or flagged by the citation pass, by reason. */
  citations: { kept: number; dropped: number; byReason: Record<string, number> };
  /** Share of cited sentences whose words overlap their excerpts (null when nothing is cited). */
  groundedShare: number | null;
  /** Cited sentences checked and how many passed. */
  grounding: { sentences: number; supported: number };
  tables: { total: number; valid: number; repaired: number };
  headings: { problems: number; details: string[]; titles: string[] };
  /** Predictive statements found, those about past dates without attribution (flagged), and the rate. */
  temporal: { predictive: number; flagged: number; errorRate: number | null; details: string[] };
  language: { expected: string; detected: string; share: number | null };
}

/** A finished report. */
export interface ReportDocument {
  runId: string;
  query: string;
  strategy: string;
  title: string;
  /** ISO time the report was assembled. */
  createdAt: string;
  /** The run's current date (YYYY-MM-DD). */
  currentDate: string;
  /** Language code the report is written in. */
  language: string;
  outline: Outline;
  /** The final Markdown, with numbered citations and the References section. */
  markdown: string;
  /** The Markdown without the References section. */
  body: string;
  references: Reference[];
  /** Evidence ids behind each reference number. */
  evidenceByNumber: Record<number, string[]>;
  /** Every source and evidence item of the run. */
  sources: Source[];
  evidence: Evidence[];
  checks: ReportChecks;
  usage: UsageTotals;
  stopReason: string;
  /** A notice shown at the top (e.g. offline mode). */
  notice?: string;
  /** Each cited sentence checked against its passages (absent when verification is off). */
  verification?: ClaimVerification;
}
