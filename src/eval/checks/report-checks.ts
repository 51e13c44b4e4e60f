/**
 * All report checks in one call, and the compact figures a report stores with itself
 * (`report-ready` event `stats.checks`) so that process metrics can read them back.
 */

import { z } from "zod";
import { checkHeadings, type HeadingsCheckResult } from "./headings.ts";
import { checkLanguage, type LanguageCheckResult } from "./language.ts";
import { checkTables, type TablesCheckResult } from "./tables.ts";
import { checkTemporal, type TemporalCheckResult } from "./temporal.ts";

/** The figures of the report checks, as stored with a report. Counts are exact; rates are null when undefined. */
export const reportCheckFiguresSchema = z.object({
  tables: z.object({ total: z.number().int(), valid: z.number().int(), validRate: z.number().nullable() }),
  headings: z.object({
    count: z.number().int(),
    errors: z.number().int(),
    skippedLevels: z.number().int(),
    emptySections: z.number().int(),
    duplicateTitles: z.number().int(),
    /** Heading titles in document order (for the outline title miss rate). */
    titles: z.array(z.string()),
  }),
  temporal: z.object({
    currentDate: z.string(),
    sentences: z.number().int(),
    predictive: z.number().int(),
    pastPredictive: z.number().int(),
    flagged: z.number().int(),
    errorRate: z.number().nullable(),
    /** True when the model stage decided the flags. */
    verified: z.boolean(),
  }),
  language: z.object({ expected: z.string(), detected: z.string(), share: z.number().nullable() }).nullable(),
});

/** The figures of the report checks. */
export type ReportCheckFigures = z.infer<typeof reportCheckFiguresSchema>;

/** Options of {@link runReportChecks}. */
export interface ReportChecksOptions {
  /** `YYYY-MM-DD`; temporal reasoning is relative to it. */
  currentDate: string;
  /** ISO code the report should be written in; the language check is skipped without it. */
  expectedLanguage?: string;
}

/** Every check's full result plus the stored figures. */
export interface ReportChecks {
  tables: TablesCheckResult;
  headings: HeadingsCheckResult;
  temporal: TemporalCheckResult;
  language: LanguageCheckResult | null;
  figures: ReportCheckFigures;
}

/** The figures of a temporal result (regex-only or model-verified). */
export function temporalFigures(
  temporal: Pick<
    TemporalCheckResult,
    "currentDate" | "sentences" | "candidates" | "pastPredictive" | "flagged" | "errorRate"
  >,
  verified = false,
): ReportCheckFigures["temporal"] {
  return {
    currentDate: temporal.currentDate,
    sentences: temporal.sentences,
    predictive: temporal.candidates.length,
    pastPredictive: temporal.pastPredictive,
    flagged: temporal.flagged.length,
    errorRate: temporal.errorRate,
    verified,
  };
}

/** Runs the table, heading, temporal (regex stage) and language checks on a report. */
export function runReportChecks(markdown: string, options: ReportChecksOptions): ReportChecks {
  const tables = checkTables(markdown);
  const headings = checkHeadings(markdown);
  const temporal = checkTemporal(markdown, { currentDate: options.currentDate });
  const language = options.expectedLanguage ? checkLanguage(markdown, options.expectedLanguage) : null;
  const figures: ReportCheckFigures = {
    tables: { total: tables.total, valid: tables.valid, validRate: tables.validRate },
    headings: {
      count: headings.headings.length,
      errors: headings.errors,
      skippedLevels: headings.skippedLevels,
      emptySections: headings.emptySections,
      duplicateTitles: headings.duplicateTitles,
      titles: headings.headings.map((h) => h.title),
    },
    temporal: temporalFigures(temporal),
    language: language && { expected: language.expected, detected: language.detected, share: language.share },
  };
  return { tables, headings, temporal, language, figures };
}
