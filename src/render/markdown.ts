/**
 * The Markdown rendering of a report: the final text with numbered citations and References,
 * under the report's title, with its notice (e.g. offline mode) right after the title. The text
 * goes through {@link safeMarkdown} (already done at assembly; idempotent), so raw HTML reads as
 * text and links keep only http(s)/mailto/#… targets in any viewer; images become links unless
 * the options keep them ({@link imagesAsLinks}), so no viewer loads anything remote. A verified
 * report ends with the claim check's summary line.
 */

import { claimSummaryLine } from "../core/claim-verdicts.ts";
import { imagesAsLinks } from "../core/markdown-images.ts";
import type { ReportDocument } from "../core/report.ts";
import { safeMarkdown } from "../core/safe-markdown.ts";
import type { RenderOptions } from "./render-options.ts";

/** Renders the report as Markdown. */
export function renderMarkdown(doc: ReportDocument, options: RenderOptions = {}): string {
  let text = doc.markdown.trim();
  if (!/^#\s/.test(text)) text = `# ${doc.title.replace(/\s+/g, " ").trim()}\n\n${text}`;
  if (doc.notice) {
    const nl = text.indexOf("\n");
    const head = nl < 0 ? text : text.slice(0, nl);
    const rest = nl < 0 ? "" : text.slice(nl + 1).replace(/^\n+/, "");
    text = `${head}\n\n> ${doc.notice.replace(/\n/g, "\n> ")}\n\n${rest}`;
  }
  // The claim check's one-line summary closes the report (our own text).
  if (doc.verification)
    text = `${text.trimEnd()}\n\n---\n\n${claimSummaryLine(doc.verification, doc.language)}`;
  const safe = safeMarkdown(text);
  return `${(options.remoteImages === "keep" ? safe : imagesAsLinks(safe)).trimEnd()}\n`;
}
