import { describe, expect, it } from "vitest";
import { CORRUPT_PDF, makeScannedPdf, makeTextPdf } from "../../../test/fake-web/index.ts";
import { DossierError } from "../../core/errors.ts";
import { GARBLED_GLYPHS, makeFixturePdf } from "./pdf-test-fixtures.ts";
import { emptyPageMarker, pageMarker, pdfToText } from "./pdf-text.ts";

describe("pdfToText", () => {
  it("extracts text per page with page markers and the title", async () => {
    const bytes = await makeTextPdf(["Alpha page one.\nSecond line.", "Beta page two."], "Two Pages");
    const pdf = await pdfToText(bytes);
    expect(pdf.title).toBe("Two Pages");
    expect(pdf.totalPages).toBe(2);
    expect(pdf.pages).toEqual([
      { page: 1, text: "Alpha page one.\nSecond line." },
      { page: 2, text: "Beta page two." },
    ]);
    expect(pdf.markdown).toBe(
      `${pageMarker(1)}\n\nAlpha page one.\nSecond line.\n\n${pageMarker(2)}\n\nBeta page two.`,
    );
    expect(pdf.reason).toBeUndefined();
  });

  it("leaves the caller's bytes usable", async () => {
    const bytes = await makeTextPdf(["Once."]);
    await pdfToText(bytes);
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect((await pdfToText(bytes)).pages[0]!.text).toBe("Once.");
  });

  it("yields empty text with the reason no-text-layer for a scan", async () => {
    const pdf = await pdfToText(await makeScannedPdf());
    expect(pdf).toEqual({
      title: "",
      totalPages: 1,
      pages: [{ page: 1, text: "" }],
      pagesWithoutText: [1],
      markdown: "",
      reason: "no-text-layer",
    });
  });

  it("fails with UNREADABLE for a corrupt PDF", async () => {
    const error = await pdfToText(CORRUPT_PDF).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DossierError);
    expect(error).toMatchObject({ code: "UNREADABLE", details: { reason: "corrupt-pdf" } });
  });
});

describe("PDF pages without extractable text", () => {
  it("leaves out a page set in a font without a Unicode map and names it", async () => {
    const bytes = await makeFixturePdf([
      { text: "Alpha page one." },
      { glyphIds: GARBLED_GLYPHS },
      { text: "Gamma page three." },
    ]);
    const pdf = await pdfToText(bytes);
    expect(pdf.pages).toEqual([
      { page: 1, text: "Alpha page one." },
      { page: 2, text: "" },
      { page: 3, text: "Gamma page three." },
    ]);
    expect(pdf.pagesWithoutText).toEqual([2]);
    expect(pdf.markdown).toBe(
      `${pageMarker(1)}\n\nAlpha page one.\n\n${emptyPageMarker(2)}\n\n${pageMarker(3)}\n\nGamma page three.`,
    );
    expect(pdf.markdown).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(pdf.reason).toBeUndefined();
  });

  it("has the reason no-text-layer when no page has text", async () => {
    const pdf = await pdfToText(await makeFixturePdf([{ glyphIds: GARBLED_GLYPHS }]));
    expect(pdf).toMatchObject({ markdown: "", pagesWithoutText: [1], reason: "no-text-layer" });
  });

  it("joins words hyphenated across line ends", async () => {
    const pdf = await pdfToText(
      await makeFixturePdf([{ text: "This is an exam-\nple of hyphen-\nation, but Covid-\n19 stays." }]),
    );
    expect(pdf.pages[0]!.text).toBe("This is an example of hyphenation, but Covid-\n19 stays.");
  });
});
