/**
 * The PDF rendering of a report: the HTML report ({@link renderHtml}) printed by a local
 * chromium (Debian's `chromium` package, or any chromium named by `DOSSIER_CHROMIUM`), driven
 * through playwright-core (an optional dependency that downloads no browser). The PDF keeps the
 * HTML report's links (citations to the References section, references to their sources), has
 * an outline from the headings, and shows CJK text with the system's fonts (Debian's
 * `fonts-noto-cjk`).
 *
 * The browser is headless, offline and fresh for each rendering: its own empty profile, no
 * sync, no background or component-update traffic, no QUIC, and every request of the page is
 * refused but the document itself, which is answered from memory — a report image kept with
 * `remoteImages: "keep"` is not fetched either.
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DossierError } from "../core/errors.ts";
import type { ReportDocument } from "../core/report.ts";
import { CHROMIUM_FLAGS, findChromium, type PdfEnv, pdfUnavailable } from "./format-support.ts";
import { renderHtml } from "./html.ts";
import type { RenderOptions } from "./render-options.ts";

/** The address the document is given inside the browser (a name that never resolves). */
const DOCUMENT_URL = "http://report.invalid/";

/** Options of {@link renderPdf}. */
export interface PdfOptions extends RenderOptions {
  /** Where to find chromium: `DOSSIER_CHROMIUM`, else `PATH` (default `process.env`). */
  env?: PdfEnv;
  /** Time limit of launching the browser and of printing, each (default 60 s). */
  timeoutMs?: number;
  /** Called with each request the page tried to make and was refused (tests). */
  onBlockedRequest?: (url: string) => void;
  /**
   * The address the document is given inside the browser, answered from memory (tests; default
   * `http://report.invalid/`, a name that never resolves).
   */
  documentUrl?: string;
}

/** Renders the report as PDF (bytes) through the HTML report and a local chromium. */
export async function renderPdf(doc: ReportDocument, options: PdfOptions = {}): Promise<Uint8Array> {
  const env = options.env ?? process.env;
  const problem = pdfUnavailable(env);
  if (problem) throw problem;
  const html = renderHtml(doc, options.remoteImages ? { remoteImages: options.remoteImages } : {});
  const { chromium } = await import("playwright-core");
  const timeout = options.timeoutMs ?? 60_000;
  const documentUrl = new URL(options.documentUrl ?? DOCUMENT_URL).href;
  const profile = mkdtempSync(join(tmpdir(), "dossier-pdf-"));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: findChromium(env)!,
      headless: true,
      args: [...CHROMIUM_FLAGS],
      javaScriptEnabled: false,
      colorScheme: "light",
      timeout,
    });
    try {
      context.setDefaultTimeout(timeout);
      await context.route("**/*", async (route) => {
        const request = route.request();
        if (request.url() === documentUrl && request.isNavigationRequest()) {
          await route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html });
        } else {
          options.onBlockedRequest?.(request.url());
          await route.abort("blockedbyclient");
        }
      });
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(documentUrl, { waitUntil: "load" });
      const pdf = await page.pdf({
        format: "A4",
        margin: { top: "18mm", bottom: "18mm", left: "16mm", right: "16mm" },
        printBackground: true,
        outline: true,
        tagged: true,
      });
      return new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
    } finally {
      await context.close().catch(() => {});
    }
  } catch (cause) {
    if (cause instanceof DossierError) throw cause;
    throw new DossierError(
      "INTERNAL",
      `chromium could not print the PDF report: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  } finally {
    if (existsSync(profile)) rmSync(profile, { recursive: true, force: true });
  }
}
