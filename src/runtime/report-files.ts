/**
 * Writing a report's renderings to disk.
 */

import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { DossierError } from "../core/errors.ts";
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

/**
 * Checks, before anything runs, that every report file can be written: the target is not a
 * directory or a device, its parent is (or can be made) a writable directory. Creates missing
 * parents. Throws INPUT_INVALID naming the path and the reason.
 */
export function checkReportTargets(paths: readonly string[], out?: string, flag = "--out"): void {
  const refuse = (path: string, why: string) =>
    new DossierError("INPUT_INVALID", `${flag}: cannot write the report to ${path}: ${why}`, {
      details: { path },
    });
  if (out && existsSync(out)) {
    const stat = statSync(out);
    if (!stat.isDirectory() && !stat.isFile()) throw refuse(out, "it is a device or special file");
  }
  for (const path of paths) {
    if (existsSync(path)) {
      const stat = statSync(path);
      if (stat.isDirectory()) throw refuse(path, "it is a directory");
      if (!stat.isFile()) throw refuse(path, "it is a device or special file, not a regular file");
    }
    const parent = dirname(path);
    let cursor = parent;
    while (!existsSync(cursor) && dirname(cursor) !== cursor) cursor = dirname(cursor);
    if (!statSync(cursor).isDirectory()) throw refuse(path, `${cursor} is not a directory`);
    try {
      mkdirSync(parent, { recursive: true });
      accessSync(parent, constants.W_OK);
    } catch (cause) {
      throw refuse(path, `its folder is not writable (${(cause as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
}

/**
 * Renders and writes each format atomically: every rendering goes to a temporary file first,
 * and only when all are written are they renamed into place — all formats or none.
 */
export function writeReportFiles(
  doc: ReportDocument,
  formats: readonly ReportFormat[],
  paths: readonly string[],
): string[] {
  const temps: string[] = [];
  try {
    formats.forEach((format, i) => {
      const path = paths[i]!;
      mkdirSync(dirname(path), { recursive: true });
      const temp = `${path}.${process.pid}.tmp`;
      temps.push(temp);
      writeFileSync(temp, renderReport(doc, format));
    });
    temps.forEach((temp, i) => {
      renameSync(temp, paths[i]!);
    });
  } catch (cause) {
    for (const temp of temps) rmSync(temp, { force: true });
    throw cause;
  }
  return [...paths];
}
