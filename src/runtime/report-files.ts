/**
 * Writing a report's renderings to disk.
 */

import { randomBytes } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { DossierError } from "../core/errors.ts";
import type { ReportDocument } from "../core/report.ts";
import { REPORT_FORMATS, type ReportFormat } from "../core/report-formats.ts";
import { type RenderFileOptions, renderReportFile } from "../render/index.ts";
import { makeDirs } from "../store/make-dirs.ts";

/**
 * Where the renderings go: `out` as a directory (existing, or ending in a slash) gets
 * `<runId>.<ext>`; any other `out` is a file base whose own report extension (md, html, json,
 * pdf, docx) is dropped;
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
      : REPORT_FORMATS.some((f) => extname(out) === `.${f}`)
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
  const twice = paths.find((path, i) => paths.indexOf(path) !== i);
  if (twice) throw refuse(twice, "two report formats would write the same file");
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
      makeDirs(parent);
      accessSync(parent, constants.W_OK);
    } catch (cause) {
      throw refuse(path, `its folder is not writable (${(cause as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
}

/**
 * Renders and writes each format as one set — all formats or none. Every rendering goes to a
 * temporary file first; only when all are written are they renamed into place, and a file
 * already at a target is kept aside until the whole set is in place. On any failure the files
 * of the new set are removed and the earlier ones put back. `options.env` tells the PDF renderer
 * where chromium is.
 */
export async function writeReportFiles(
  doc: ReportDocument,
  formats: readonly ReportFormat[],
  paths: readonly string[],
  options: Pick<RenderFileOptions, "env"> = {},
): Promise<string[]> {
  if (formats.length !== paths.length || new Set(paths).size !== paths.length) {
    throw new DossierError("INTERNAL", "report formats and paths do not pair one to one", {
      details: { formats, paths },
    });
  }
  const stamp = `${process.pid}.${randomBytes(4).toString("hex")}`;
  const temps: string[] = [];
  const kept: (string | null)[] = [];
  let placed = 0;
  try {
    for (const [i, format] of formats.entries()) {
      const path = paths[i]!;
      makeDirs(dirname(path));
      const temp = `${path}.${stamp}.tmp`;
      temps.push(temp);
      writeFileSync(temp, await renderReportFile(doc, format, options));
    }
    paths.forEach((path, i) => {
      const earlier = existsSync(path) && lstatSync(path).isFile() ? `${path}.${stamp}.old` : null;
      if (earlier) renameSync(path, earlier);
      kept.push(earlier);
      renameSync(temps[i]!, path);
      placed++;
    });
  } catch (cause) {
    // Best effort: the failure that stopped the set is the one reported.
    const quietly = (undo: () => void) => {
      try {
        undo();
      } catch {}
    };
    kept.forEach((earlier, i) => {
      if (i < placed) quietly(() => rmSync(paths[i]!, { force: true }));
      if (earlier) quietly(() => renameSync(earlier, paths[i]!));
    });
    for (const temp of temps) quietly(() => rmSync(temp, { force: true }));
    throw cause;
  }
  for (const earlier of kept) if (earlier) rmSync(earlier, { force: true });
  return [...paths];
}
