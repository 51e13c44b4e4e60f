/**
 * FACT statistics, as DeepResearch Bench's `utils/stat.py` computes them:
 *
 * - only reports with at least one extracted citation count (the denominator);
 * - URL groups whose validation failed (`validate_error` set: page not fetched, judge failed)
 *   are left out of the figures — and counted here;
 * - an `unknown` verdict is ignored; any other verdict counts as a judged citation, and
 *   `supported` as a supported one;
 * - effective citations = supported / reports with citations; citations per report = judged /
 *   reports with citations; citation accuracy = supported / judged, pooled over all pairs.
 *
 * Where the benchmark divides by zero (or prints 0 for no judged citation) the figure is null.
 */

import { formatFixed } from "../race/py-numbers.ts";
import type { FactValidated } from "./records.ts";

/** Error prefix of a URL whose page could not be fetched. */
export const NO_REFERENCE = "no reference";

/** The FACT figures of a set of reports. */
export interface FactStats {
  reports: number;
  /** Reports with at least one extracted citation: the denominator. */
  reportsWithCitations: number;
  /** Reports whose extraction failed (left out). */
  extractionFailed: number;
  supported: number;
  /** Every verdict other than supported and unknown (as in the benchmark). */
  unsupported: number;
  /** Ignored verdicts. */
  unknown: number;
  /** URL groups validated / failed, and the statements of the failed ones. */
  urlsJudged: number;
  fetchFailedUrls: number;
  judgeFailedUrls: number;
  failedStatements: number;
  /** Judged (non-unknown) citations per report with citations. */
  citationsPerReport: number | null;
  /** Supported citations per report with citations. */
  effectiveCitations: number | null;
  /** supported / (supported + unsupported). */
  citationAccuracy: number | null;
}

/** Computes the statistics of validated reports. */
export function factStats(records: readonly FactValidated[]): FactStats {
  const s = {
    reports: records.length,
    reportsWithCitations: 0,
    extractionFailed: 0,
    supported: 0,
    unsupported: 0,
    unknown: 0,
    urlsJudged: 0,
    fetchFailedUrls: 0,
    judgeFailedUrls: 0,
    failedStatements: 0,
  };
  for (const record of records) {
    if (typeof record.citations === "string") {
      s.extractionFailed += 1;
      continue;
    }
    if (record.citations.length === 0) continue;
    s.reportsWithCitations += 1;
    for (const group of Object.values(record.citations_deduped)) {
      if (group.validate_error !== null) {
        if (group.validate_error.startsWith(NO_REFERENCE)) s.fetchFailedUrls += 1;
        else s.judgeFailedUrls += 1;
        s.failedStatements += group.facts.length;
        continue;
      }
      s.urlsJudged += 1;
      for (const verdict of group.validate_res) {
        if (verdict.result === "unknown") s.unknown += 1;
        else if (verdict.result === "supported") s.supported += 1;
        else s.unsupported += 1;
      }
    }
  }
  const judged = s.supported + s.unsupported;
  // When no citation could be judged at all (every fetch or judgement failed) the figures are
  // unknown, not zero.
  const per = (n: number) =>
    s.reportsWithCitations > 0 && s.urlsJudged > 0 ? n / s.reportsWithCitations : null;
  return {
    ...s,
    citationsPerReport: per(judged),
    effectiveCitations: per(s.supported),
    citationAccuracy: judged > 0 ? s.supported / judged : null,
  };
}

/** Python's `repr` of a float, for the benchmark's `fact_result.txt`. */
function pyRepr(x: number | null): string {
  if (x === null) return "n/a";
  return Number.isInteger(x) && Math.abs(x) < 1e16 ? x.toFixed(1) : String(x);
}

/** The figures as the benchmark's `fact_result.txt` holds them. */
export function formatFactResultText(stats: FactStats): string {
  return [
    `total_citations: ${pyRepr(stats.citationsPerReport)}`,
    `total_valid_citations: ${pyRepr(stats.effectiveCitations)}`,
    `valid_rate: ${pyRepr(stats.citationAccuracy)}`,
    "",
  ].join("\n");
}

/** The summary table the CLI prints. */
export function formatFactTable(stats: FactStats): string {
  const f = (x: number | null) => (x === null ? "n/a" : formatFixed(x, 4));
  const rows: Array<[string, string]> = [
    ["Effective citations:", f(stats.effectiveCitations)],
    ["Citation accuracy:", f(stats.citationAccuracy)],
    ["Citations per report:", f(stats.citationsPerReport)],
    ["Reports:", `${stats.reports} (${stats.reportsWithCitations} with citations)`],
    ["Supported:", String(stats.supported)],
    ["Unsupported:", String(stats.unsupported)],
    ["Unknown (ignored):", String(stats.unknown)],
    ["URLs judged:", String(stats.urlsJudged)],
    [
      "URLs failed:",
      `${stats.fetchFailedUrls + stats.judgeFailedUrls} (fetch ${stats.fetchFailedUrls}, judge ${stats.judgeFailedUrls}; ${stats.failedStatements} statements not judged)`,
    ],
  ];
  if (stats.extractionFailed) rows.push(["Extraction failed:", String(stats.extractionFailed)]);
  const width = Math.max(...rows.map(([l]) => l.length));
  return `FACT\n${rows.map(([l, v]) => `  ${l.padEnd(width)} ${v}`).join("\n")}\n`;
}

/** The `--json` object of the statistics. */
export function factStatsJson(stats: FactStats): Record<string, number | null> {
  return {
    effective_citations: stats.effectiveCitations,
    citation_accuracy: stats.citationAccuracy,
    citations_per_report: stats.citationsPerReport,
    reports: stats.reports,
    reports_with_citations: stats.reportsWithCitations,
    supported: stats.supported,
    unsupported: stats.unsupported,
    unknown: stats.unknown,
    urls_judged: stats.urlsJudged,
    failed_urls: stats.fetchFailedUrls + stats.judgeFailedUrls,
    fetch_failed_urls: stats.fetchFailedUrls,
    judge_failed_urls: stats.judgeFailedUrls,
    failed_statements: stats.failedStatements,
    extraction_failed: stats.extractionFailed,
  };
}
