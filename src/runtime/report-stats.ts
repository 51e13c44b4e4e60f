/**
 * The figures of a finished report that a run announces with report-ready and `--json` prints.
 */

import type { ReportDocument } from "../core/report.ts";

/** The figures of a report stored with report-ready and printed by `--json`. */
export function reportStats(report: ReportDocument) {
  return {
    title: report.title,
    sources: report.references.length,
    sourcesSeen: report.sources.length,
    evidence: report.evidence.length,
    citations: report.checks.citations.kept,
    droppedCitations: report.checks.citations.dropped,
    groundedShare: report.checks.groundedShare,
    chars: report.markdown.length,
    checks: report.checks,
    claims: report.verification
      ? {
          mode: report.verification.mode,
          counts: report.verification.counts,
          shares: report.verification.shares,
        }
      : null,
  };
}
