/**
 * The formats a report is written in: three text formats every install renders (Markdown, HTML,
 * the JSON bundle) and two binary ones — DOCX (always) and PDF (through a local chromium).
 */

/** Every report format, in the order they are listed to users. */
export const REPORT_FORMATS = ["md", "html", "json", "pdf", "docx"] as const;
/** A report format. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The text formats, rendered synchronously to a string. */
export const TEXT_REPORT_FORMATS = ["md", "html", "json"] as const;
/** A text report format. */
export type TextReportFormat = (typeof TEXT_REPORT_FORMATS)[number];

/** True for a text format (md, html, json). */
export function isTextReportFormat(format: string): format is TextReportFormat {
  return (TEXT_REPORT_FORMATS as readonly string[]).includes(format);
}

/** True for any report format. */
export function isReportFormat(format: string): format is ReportFormat {
  return (REPORT_FORMATS as readonly string[]).includes(format);
}

/** The formats as a reader sees them listed: "md, html, json, pdf or docx". */
export function reportFormatList(conjunction = "or"): string {
  return `${REPORT_FORMATS.slice(0, -1).join(", ")} ${conjunction} ${REPORT_FORMATS.at(-1)}`;
}
