/**
 * Reading one file of the corpus into sections: decode (or refuse) by kind, then the
 * Markdown, HTML, PDF or plain-text extractor. Failures become skip reasons, never
 * exceptions: `binary`, `corrupt-pdf`, `encrypted-pdf`, `no-text`.
 */

import { isDossierError } from "../../core/errors.ts";
import { decodeFileText } from "./decode-text.ts";
import { extractHtml } from "./extract-html.ts";
import { extractMarkdown } from "./extract-markdown.ts";
import { extractPdf } from "./extract-pdf.ts";
import type { DocumentKind, ExtractedDocument, SkipReason } from "./types.ts";

/** The outcome of {@link extractDocument}. */
export type ExtractOutcome =
  | { ok: true; document: ExtractedDocument }
  | { ok: false; reason: SkipReason; detail: string };

/** Plain text → one section whose paragraphs are the blocks separated by blank lines. */
export function extractPlainText(text: string, title: string): ExtractedDocument {
  const paragraphs = text
    .replace(/\r\n?/g, "\n")
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/\s+$/, "").replace(/^\n+/, ""))
    .filter((p) => p.trim() !== "");
  return { title, sections: paragraphs.length ? [{ headingPath: [], anchor: "", paragraphs }] : [] };
}

/** Extracts the sections of a file's bytes. */
export async function extractDocument(
  bytes: Uint8Array,
  kind: DocumentKind,
  fileName: string,
): Promise<ExtractOutcome> {
  let document: ExtractedDocument;
  if (kind === "pdf") {
    try {
      document = await extractPdf(bytes, fileName);
    } catch (error) {
      const reason = isDossierError(error) ? error.details.reason : undefined;
      return {
        ok: false,
        reason: reason === "encrypted-pdf" ? "encrypted-pdf" : "corrupt-pdf",
        detail: (error as Error).message,
      };
    }
    if (document.sections.length === 0) {
      return { ok: false, reason: "no-text", detail: "no text layer (a scanned PDF?)" };
    }
    return { ok: true, document };
  }
  const decoded = decodeFileText(bytes, { html: kind === "html" });
  if (!decoded.ok) return { ok: false, reason: decoded.reason, detail: decoded.detail };
  try {
    if (kind === "markdown") document = extractMarkdown(decoded.text, fileName);
    else if (kind === "html") document = extractHtml(decoded.text, fileName);
    else document = extractPlainText(decoded.text, fileName);
  } catch (error) {
    return { ok: false, reason: "unreadable", detail: (error as Error).message };
  }
  if (document.sections.length === 0) return { ok: false, reason: "no-text", detail: "no text to index" };
  return { ok: true, document };
}
