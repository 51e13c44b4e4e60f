/**
 * Which report formats this machine can produce, checked before a run starts so that a format
 * that cannot be written is refused before the first model call: md, html, json and docx always;
 * pdf when the playwright-core package and a chromium executable are installed.
 */

import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import { DossierError } from "../core/errors.ts";
import type { ReportFormat } from "../core/report-formats.ts";

/** Environment variables the PDF renderer reads (`DOSSIER_CHROMIUM`, `PATH`). */
export type PdfEnv = Record<string, string | undefined>;

/** Chromium's flags: headless, offline-minded and quiet. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** Names chromium is installed under, looked up on `PATH` in this order. */
const CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The chromium executable: `DOSSIER_CHROMIUM` when set (null when it is not an executable
 * file), else the first of chromium's usual names on `PATH`; null when none is found.
 */
export function findChromium(env: PdfEnv = process.env): string | null {
  const given = env.DOSSIER_CHROMIUM?.trim();
  if (given) return isExecutable(given) ? given : null;
  const dirs = (env.PATH ?? process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const name of CHROMIUM_NAMES)
    for (const dir of dirs) if (isExecutable(join(dir, name))) return join(dir, name);
  return null;
}

/** True when the `playwright-core` package can be loaded. */
function playwrightInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve("playwright-core");
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a PDF cannot be rendered on this machine, as a DEPENDENCY_MISSING error that says what
 * to install; null when it can.
 */
export function pdfUnavailable(
  env: PdfEnv = process.env,
  installed: () => boolean = playwrightInstalled,
): DossierError | null {
  if (!installed()) {
    return new DossierError(
      "DEPENDENCY_MISSING",
      "PDF reports need the playwright-core package, which is not installed: npm install playwright-core (it downloads no browser; chromium is needed too)",
      { details: { format: "pdf", missing: "playwright-core" } },
    );
  }
  if (!findChromium(env)) {
    const given = env.DOSSIER_CHROMIUM?.trim();
    return new DossierError(
      "DEPENDENCY_MISSING",
      given
        ? `PDF reports need chromium: DOSSIER_CHROMIUM=${given} is not an executable file (install it: apt-get install chromium)`
        : "PDF reports need chromium, which was not found on PATH: install it (Debian/Ubuntu: apt-get install chromium; for CJK text also fonts-noto-cjk) or set DOSSIER_CHROMIUM to its path",
      { details: { format: "pdf", missing: "chromium" } },
    );
  }
  return null;
}

/** Why `format` cannot be produced on this machine (DEPENDENCY_MISSING), or null when it can. */
export function formatUnavailable(format: ReportFormat, env: PdfEnv = process.env): DossierError | null {
  return format === "pdf" ? pdfUnavailable(env) : null;
}

/** Throws DEPENDENCY_MISSING, saying what to install, for the first format this machine cannot produce. */
export function checkFormatsAvailable(formats: readonly ReportFormat[], env: PdfEnv = process.env): void {
  for (const format of formats) {
    const problem = formatUnavailable(format, env);
    if (problem) throw problem;
  }
}
