/**
 * The JSON bundle of a report: the report, its outline, every source and evidence excerpt,
 * the checks and the usage — everything needed to audit it without the run's database.
 */

import type { ReportDocument } from "../core/report.ts";
import { terminalJson } from "../core/terminal-text.ts";

/** Version of the bundle format. */
export const BUNDLE_VERSION = 1;

/** Renders the report as a JSON bundle. */
export function renderJsonBundle(doc: ReportDocument): string {
  const cited = new Set(Object.values(doc.evidenceByNumber).flat());
  // C0 characters are escaped by JSON itself; terminalJson also escapes DEL and the C1 range.
  return `${terminalJson(
    {
      format: "dossier-report",
      version: BUNDLE_VERSION,
      runId: doc.runId,
      query: doc.query,
      strategy: doc.strategy,
      title: doc.title,
      createdAt: doc.createdAt,
      currentDate: doc.currentDate,
      language: doc.language,
      notice: doc.notice ?? null,
      stopReason: doc.stopReason,
      report: { markdown: doc.markdown, body: doc.body },
      outline: doc.outline,
      references: doc.references,
      evidenceByNumber: doc.evidenceByNumber,
      sources: doc.sources,
      evidence: doc.evidence.map((e) => ({ ...e, cited: cited.has(e.id) })),
      checks: doc.checks,
      usage: doc.usage,
    },
    2,
  )}\n`;
}
