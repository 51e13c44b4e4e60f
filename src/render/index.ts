/**
 * Renderers of a report document: Markdown, HTML and the JSON bundle (text, synchronous), DOCX
 * and PDF (bytes; see docx.ts and pdf.ts), and which of them this machine can produce.
 */

import type { ReportDocument } from "../core/report.ts";
import type { ReportFormat, TextReportFormat } from "../core/report-formats.ts";
import type { PdfEnv } from "./format-support.ts";
import { renderHtml } from "./html.ts";
import { renderJsonBundle } from "./json-bundle.ts";
import { renderMarkdown } from "./markdown.ts";
import type { RenderOptions } from "./render-options.ts";

export * from "../core/report-formats.ts";
export * from "./format-support.ts";
export * from "./html.ts";
export * from "./json-bundle.ts";
export * from "./markdown.ts";
export * from "./render-options.ts";

/** Renders a report in a text format (images as links unless `options.remoteImages` is `keep`). */
export function renderReport(
  doc: ReportDocument,
  format: TextReportFormat,
  options: RenderOptions = {},
): string {
  switch (format) {
    case "md":
      return renderMarkdown(doc, options);
    case "html":
      return renderHtml(doc, options);
    case "json":
      return renderJsonBundle(doc, options);
  }
}

/** Options of {@link renderReportFile}. */
export interface RenderFileOptions extends RenderOptions {
  /** Where the PDF renderer looks for chromium (`DOSSIER_CHROMIUM`, `PATH`; default `process.env`). */
  env?: PdfEnv;
}

/**
 * Renders a report in any format: text for md, html and json, bytes for pdf and docx. The DOCX
 * and PDF renderers (and their libraries) are loaded on first use. A PDF needs chromium and
 * playwright-core (DEPENDENCY_MISSING otherwise; see {@link formatUnavailable}).
 */
export async function renderReportFile(
  doc: ReportDocument,
  format: ReportFormat,
  options: RenderFileOptions = {},
): Promise<string | Uint8Array> {
  const { env, ...render } = options;
  switch (format) {
    case "docx":
      return (await import("./docx.ts")).renderDocx(doc, render);
    case "pdf":
      return (await import("./pdf.ts")).renderPdf(doc, { ...render, ...(env ? { env } : {}) });
    default:
      return renderReport(doc, format, render);
  }
}
