/**
 * PDF fixtures generated with pdf-lib: a text PDF with several pages, a "scanned" PDF whose
 * only page is a drawn rectangle (no text layer), and a corrupt PDF.
 */

import { PDFDocument, rgb, StandardFonts } from "pdf-lib";

/** Fixed dates so generated PDFs are byte-stable. */
const FIXED_DATE = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));

/** A PDF with one page per entry of `pages` (lines split on `\n`), titled `title`. */
export async function makeTextPdf(pages: readonly string[], title = "Fixture PDF"): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage([595, 842]);
    let y = 780;
    for (const line of text.split("\n")) {
      page.drawText(line, { x: 50, y, size: 12, font });
      y -= 18;
    }
  }
  return doc.save();
}

/** A PDF whose only page carries a filled rectangle and no text (like a scan). */
export async function makeScannedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  const page = doc.addPage([595, 842]);
  page.drawRectangle({ x: 50, y: 50, width: 495, height: 742, color: rgb(0.85, 0.85, 0.8) });
  return doc.save();
}

/** Bytes that start like a PDF but are not one. */
export const CORRUPT_PDF: Uint8Array = new TextEncoder().encode(
  "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\nthis is not a pdf body at all\n%%EOF\n",
);
