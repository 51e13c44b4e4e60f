/**
 * PDF fixtures for the tests (not part of the library), built with pdf-lib: pages of real text
 * (Helvetica, lines drawn as given) and pages set in a font without a Unicode map — a Type0
 * font with `Identity-H` encoding and no `ToUnicode`, whose glyph ids PDF.js reads back as
 * control characters, as real subset fonts without a Unicode map do.
 */

import {
  beginText,
  endText,
  moveText,
  PDFDocument,
  PDFHexString,
  PDFName,
  StandardFonts,
  setFontAndSize,
  showText,
} from "pdf-lib";

/** A page of the fixture: text drawn with Helvetica, or glyph ids shown with a font without a Unicode map. */
export type FixturePage = { text: string } | { glyphIds: number[] };

/** Glyph ids as a subset font numbers them: small numbers, read back as control characters. */
export const GARBLED_GLYPHS = [
  3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 3, 21, 22, 5, 23, 24, 25, 26, 27, 28, 29, 30, 31,
];

/** Builds a PDF with the given pages. */
export async function makeFixturePdf(pages: readonly FixturePage[], title = "Fixture"): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const ctx = doc.context;
  const descriptor = ctx.obj({
    Type: "FontDescriptor",
    FontName: "ABCDEF+Subset",
    Flags: 4,
    FontBBox: [0, -200, 1000, 800],
    ItalicAngle: 0,
    Ascent: 800,
    Descent: -200,
    CapHeight: 700,
    StemV: 80,
  });
  const cidFont = ctx.obj({
    Type: "Font",
    Subtype: "CIDFontType2",
    BaseFont: "ABCDEF+Subset",
    CIDSystemInfo: {
      Registry: PDFHexString.fromText("Adobe"),
      Ordering: PDFHexString.fromText("Identity"),
      Supplement: 0,
    },
    FontDescriptor: descriptor,
    CIDToGIDMap: "Identity",
  });
  const noUnicodeFont = ctx.register(
    ctx.obj({
      Type: "Font",
      Subtype: "Type0",
      BaseFont: "ABCDEF+Subset",
      Encoding: "Identity-H",
      DescendantFonts: [cidFont],
    }),
  );
  for (const spec of pages) {
    const page = doc.addPage([500, 400]);
    if ("text" in spec) {
      page.drawText(spec.text, { x: 30, y: 360, size: 11, font: helvetica, lineHeight: 14 });
      continue;
    }
    page.node.setFontDictionary(PDFName.of("NoUnicode"), noUnicodeFont);
    const hex = spec.glyphIds.map((id) => id.toString(16).padStart(4, "0")).join("");
    page.pushOperators(
      beginText(),
      setFontAndSize("NoUnicode", 11),
      moveText(30, 360),
      showText(PDFHexString.of(hex)),
      endText(),
    );
  }
  return doc.save();
}
