/**
 * The Markdown rendering of a report: the final text with numbered citations and References,
 * under the report's title, with its notice (e.g. offline mode) right after the title. The text
 * goes through {@link safeMarkdown} (already done at assembly; idempotent), so raw HTML reads as
 * text and links keep only http(s)/mailto/#… targets in any viewer.
 */

import type { ReportDocument } from "../core/report.ts";
import { safeMarkdown } from "../core/safe-markdown.ts";

/** Renders the report as Markdown. */
export function renderMarkdown(doc: ReportDocument): string {
  let text = doc.markdown.trim();
  if (!/^#\s/.test(text)) text = `# ${doc.title.replace(/\s+/g, " ").trim()}\n\n${text}`;
  if (doc.notice) {
    const nl = text.indexOf("\n");
    const head = nl < 0 ? text : text.slice(0, nl);
    const rest = nl < 0 ? "" : text.slice(nl + 1).replace(/^\n+/, "");
    text = `${head}\n\n> ${doc.notice.replace(/\n/g, "\n> ")}\n\n${rest}`;
  }
  return `${safeMarkdown(text).trimEnd()}\n`;
}
