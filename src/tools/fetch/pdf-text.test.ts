import { describe, expect, it } from "vitest";
import { CORRUPT_PDF, makeScannedPdf, makeTextPdf } from "../../../test/fake-web/index.ts";
import { DossierError } from "../../core/errors.ts";
import { pageMarker, pdfToText } from "./pdf-text.ts";

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
