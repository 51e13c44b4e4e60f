/**
 * What the PDF tests need: chromium and playwright-core to print (see
 * src/render/format-support.ts) and Debian's poppler-utils to read the PDF back (`pdftotext`).
 * A test file that needs them skips with a visible notice when one is missing, unless
 * `DOSSIER_REQUIRE_SERVICES=1` (CI), where the missing tool fails the file instead.
 */

import { execFileSync } from "node:child_process";
import { pdfUnavailable } from "../src/render/format-support.ts";
import { servicesAnswer } from "./services.ts";

/** Null when `pdftotext` runs, else why not. */
export function pdftotextProblem(): string | null {
  try {
    execFileSync("pdftotext", ["-v"], { stdio: "ignore" });
    return null;
  } catch {
    return "pdftotext not found (install Debian's poppler-utils)";
  }
}

/** True when PDFs can be printed and read back here; otherwise registers the skip (or the failure). */
export function pdfToolsAnswer(): boolean {
  return servicesAnswer([pdfUnavailable()?.message ?? null, pdftotextProblem()]);
}

/** The text of a PDF as `pdftotext` reads it (UTF-8, reading order), NFKC-normalised. */
export function pdfText(path: string): string {
  return execFileSync("pdftotext", ["-enc", "UTF-8", path, "-"], { encoding: "utf8" }).normalize("NFKC");
}

/** The link annotations of a PDF: external URIs and in-document destinations, in page order. */
export async function pdfLinks(bytes: Uint8Array): Promise<{ uris: string[]; destinations: string[] }> {
  const { PDFDict, PDFDocument, PDFName } = await import("pdf-lib");
  const pdf = await PDFDocument.load(bytes);
  const uris: string[] = [];
  const destinations: string[] = [];
  for (const page of pdf.getPages()) {
    const annots = page.node.Annots();
    for (let i = 0; i < (annots?.size() ?? 0); i++) {
      const annot = annots!.lookup(i, PDFDict);
      if (String(annot.lookup(PDFName.of("Subtype"))) !== "/Link") continue;
      const action = annot.lookup(PDFName.of("A"));
      const uri = action instanceof PDFDict ? action.lookup(PDFName.of("URI")) : undefined;
      if (uri) uris.push(decodePdfString(String(uri)));
      const dest = annot.lookup(PDFName.of("Dest"));
      if (dest) destinations.push(String(dest).replace(/^\//, ""));
    }
  }
  return { uris, destinations };
}

/** The text of a PDF literal string as pdf-lib prints it: `(…)` with backslash escapes. */
function decodePdfString(text: string): string {
  return text.replace(/^\(|\)$/g, "").replace(/\\([()\\])/g, "$1");
}
