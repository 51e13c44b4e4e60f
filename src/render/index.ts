/** Renderers of a report document. */

import type { ReportDocument } from "../core/report.ts";
import { renderHtml } from "./html.ts";
import { renderJsonBundle } from "./json-bundle.ts";
import { renderMarkdown } from "./markdown.ts";
import type { RenderOptions } from "./render-options.ts";

export * from "./html.ts";
export * from "./json-bundle.ts";
export * from "./markdown.ts";
export * from "./render-options.ts";

/** Output formats. */
export const REPORT_FORMATS = ["md", "html", "json"] as const;
/** An output format. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Renders a report in one format (images as links unless `options.remoteImages` is `keep`). */
export function renderReport(doc: ReportDocument, format: ReportFormat, options: RenderOptions = {}): string {
  switch (format) {
    case "md":
      return renderMarkdown(doc, options);
    case "html":
      return renderHtml(doc, options);
    case "json":
      return renderJsonBundle(doc, options);
  }
}
