/**
 * Writing a report's renderings to disk.
 */

import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import type { ReportDocument } from "../core/report.ts";
import { type ReportFormat, renderReport } from "../render/index.ts";

/**
 * Where the renderings go: `out` as a directory (existing, or ending in a slash) gets
 * `<runId>.<ext>`; any other `out` is a file base whose own md/html/json extension is dropped;
 * without `out`, `<home>/reports/<runId>.<ext>`.
 */
export function reportPaths(options: {
  out?: string;
  home: string;
  cwd: string;
  runId: string;
  formats: readonly ReportFormat[];
}): string[] {
  let base: string;
  if (!options.out) base = join(resolve(options.cwd, options.home), "reports", options.runId);
  else {
    const out = resolve(options.cwd, options.out);
    const isDir = /[/\\]$/.test(options.out) || (existsSync(out) && statSync(out).isDirectory());
    base = isDir
      ? join(out, options.runId)
      : [".md", ".html", ".json"].includes(extname(out))
        ? out.slice(0, -extname(out).length)
        : out;
  }
  return options.formats.map((f) => `${base}.${f}`);
}

/** Renders and writes each format; returns the paths written. */
export function writeReportFiles(
  doc: ReportDocument,
  formats: readonly ReportFormat[],
  paths: readonly string[],
): string[] {
  formats.forEach((format, i) => {
    const path = paths[i]!;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, renderReport(doc, format));
  });
  return [...paths];
}
