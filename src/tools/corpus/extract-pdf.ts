/**
 * PDF → one section per page (anchor `page=N`), with unpdf (PDF.js; XFA off, warnings
 * silenced). A page's paragraphs are its blocks separated by blank lines, with words hyphenated
 * across line ends joined. A page without extractable text (empty, or glyphs of fonts without
 * a Unicode map read as control characters) is left out and listed in `pagesWithoutText`. A
 * corrupt or encrypted PDF throws UNREADABLE with `details.reason` `corrupt-pdf` /
 * `encrypted-pdf`. The title is the document's Title metadata, else the file name.
 */

import { DossierError } from "../../core/errors.ts";
import { readPdfPageText } from "../fetch/pdf-page-text.ts";
import type { ExtractedDocument, Section } from "./types.ts";

/** True when the bytes start (within the first KB) with the `%PDF-` signature. */
export function hasPdfSignature(bytes: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return head.includes("%PDF-");
}

function unreadable(error: unknown): DossierError {
  const name = (error as { name?: string })?.name ?? "";
  const encrypted = name === "PasswordException";
  const message = (error as Error)?.message ?? String(error);
  return new DossierError(
    "UNREADABLE",
    encrypted ? "the PDF is encrypted" : `the PDF cannot be read: ${message}`,
    { cause: error, details: { reason: encrypted ? "encrypted-pdf" : "corrupt-pdf" } },
  );
}

/** Extracts a PDF's text page by page. */
export async function extractPdf(bytes: Uint8Array, fallbackTitle: string): Promise<ExtractedDocument> {
  if (!hasPdfSignature(bytes)) throw unreadable(new Error("no %PDF- signature"));
  // unpdf (PDF.js) is loaded on the first PDF, not with the module.
  const { extractText, getDocumentProxy, getMeta } = await import("unpdf");
  // PDF.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  let pdf: Awaited<ReturnType<typeof import("unpdf").getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), {
      verbosity: 0,
      enableXfa: false,
    });
  } catch (error) {
    throw unreadable(error);
  }
  try {
    let pages: string[];
    try {
      pages = (await extractText(pdf, { mergePages: false })).text;
    } catch (error) {
      throw unreadable(error);
    }
    let title = "";
    try {
      const info = (await getMeta(pdf)).info as { Title?: unknown };
      if (typeof info.Title === "string") title = info.Title.trim();
    } catch {
      // metadata is optional
    }
    const sections: Section[] = [];
    const pagesWithoutText: number[] = [];
    pages.forEach((raw, index) => {
      const paragraphs = readPdfPageText(raw)
        .text.split(/\n[ \t]*\n/)
        .map((p) => p.trim())
        .filter((p) => p !== "");
      if (paragraphs.length > 0) {
        sections.push({ headingPath: [], anchor: `page=${index + 1}`, page: index + 1, paragraphs });
      } else {
        pagesWithoutText.push(index + 1);
      }
    });
    return {
      title: title || fallbackTitle,
      sections,
      ...(pagesWithoutText.length ? { pagesWithoutText } : {}),
    };
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}
