/**
 * PDF → text per page with unpdf (PDF.js). The Markdown form marks each page with an HTML
 * comment `<!-- page N -->` so page numbers survive into excerpts and citations. A corrupt or
 * encrypted PDF is UNREADABLE; a PDF without a text layer (a scan) is not an error: it yields
 * empty text with the reason `no-text-layer`. A page without extractable text (no text, or
 * glyphs of fonts without a Unicode map read as control characters; see pdf-page-text.ts)
 * keeps only its marker, `<!-- page N: no extractable text -->`, and is listed in
 * `pagesWithoutText`. Words hyphenated across line ends are joined.
 */

import { DossierError } from "../../core/errors.ts";
import { readPdfPageText } from "./pdf-page-text.ts";

/** The text of one page (1-based). */
export interface PdfPage {
  page: number;
  text: string;
}

/** The text of a PDF. */
export interface PdfText {
  /** The document's Title metadata; empty when none. */
  title: string;
  totalPages: number;
  /** Every page; a page without extractable text has empty text. */
  pages: PdfPage[];
  /** Pages (1-based) without extractable text: empty, or not text (fonts without a Unicode map). */
  pagesWithoutText: number[];
  /** Pages joined with `<!-- page N -->` markers; empty when no page has text. */
  markdown: string;
  /** Set when there is no text: `no-text-layer` (a scanned PDF). */
  reason?: "no-text-layer";
}

/** The marker that starts page `n` in the Markdown form. */
export function pageMarker(n: number): string {
  return `<!-- page ${n} -->`;
}

/** The marker of page `n` when it has no extractable text. */
export function emptyPageMarker(n: number): string {
  return `<!-- page ${n}: no extractable text -->`;
}

/** Extracts the text of a PDF, page by page. */
export async function pdfToText(bytes: Uint8Array): Promise<PdfText> {
  // unpdf (PDF.js) is loaded on the first PDF, not with the module.
  const { extractText, getDocumentProxy, getMeta } = await import("unpdf");
  // PDF.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const data = new Uint8Array(bytes);
  let proxy: Awaited<ReturnType<typeof import("unpdf").getDocumentProxy>>;
  try {
    proxy = await getDocumentProxy(data, { verbosity: 0 });
  } catch (error) {
    const name = (error as { name?: string })?.name ?? "";
    const encrypted = name === "PasswordException";
    throw new DossierError(
      "UNREADABLE",
      encrypted
        ? "the PDF is encrypted and cannot be read"
        : `the PDF cannot be read: ${(error as Error)?.message ?? String(error)}`,
      { cause: error, details: { reason: encrypted ? "encrypted-pdf" : "corrupt-pdf" } },
    );
  }
  try {
    let texts: string[];
    try {
      texts = (await extractText(proxy, { mergePages: false })).text;
    } catch (error) {
      throw new DossierError(
        "UNREADABLE",
        `the PDF's text cannot be extracted: ${(error as Error).message}`,
        {
          cause: error,
          details: { reason: "corrupt-pdf" },
        },
      );
    }
    let title = "";
    try {
      const info = (await getMeta(proxy)).info as { Title?: unknown };
      title = typeof info.Title === "string" ? info.Title.trim() : "";
    } catch {
      title = "";
    }
    const pages = texts.map((raw, i) => ({ page: i + 1, text: readPdfPageText(raw).text }));
    const pagesWithoutText = pages.filter((p) => p.text === "").map((p) => p.page);
    const hasText = pagesWithoutText.length < pages.length;
    const markdown = hasText
      ? pages
          .map((p) => (p.text ? `${pageMarker(p.page)}\n\n${p.text}` : emptyPageMarker(p.page)))
          .join("\n\n")
      : "";
    return {
      title,
      totalPages: texts.length,
      pages,
      pagesWithoutText,
      markdown,
      ...(hasText ? {} : { reason: "no-text-layer" as const }),
    };
  } finally {
    await proxy.loadingTask.destroy().catch(() => undefined);
  }
}
