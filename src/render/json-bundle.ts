/**
 * The JSON bundle of a report: the report, its outline, every source and evidence excerpt,
 * the checks and the usage — everything needed to audit it without the run's database.
 */

import { imagesAsLinks } from "../core/markdown-images.ts";
import type { ReportDocument } from "../core/report.ts";
import { terminalJson } from "../core/terminal-text.ts";
import type { RenderOptions } from "./render-options.ts";

/** Version of the bundle format. */
export const BUNDLE_VERSION = 1;

/** Renders the report as a JSON bundle (its report text with images as links unless kept). */
export function renderJsonBundle(doc: ReportDocument, options: RenderOptions = {}): string {
  const text = (markdown: string) => (options.remoteImages === "keep" ? markdown : imagesAsLinks(markdown));
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
      report: { markdown: text(doc.markdown), body: text(doc.body) },
      outline: doc.outline,
      references: doc.references,
      evidenceByNumber: doc.evidenceByNumber,
      sources: doc.sources,
      evidence: doc.evidence.map((e) => ({ ...e, cited: cited.has(e.id) })),
      checks: doc.checks,
      // Every claim checked: verdict, deciding span and its evidence, reason (null when verification was off).
      claims: doc.verification ?? null,
      usage: doc.usage,
    },
    2,
  )}\n`;
}
