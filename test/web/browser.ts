/**
 * What the browser tests share: Debian's chromium (never a downloaded browser) driven by
 * playwright-core, why the tests cannot run when it or the built UI is missing, and a
 * collector of console errors.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { defaultWebRoot } from "../../src/server/web.ts";

/** The chromium executable (`DOSSIER_CHROMIUM` overrides it). */
export const CHROMIUM = process.env.DOSSIER_CHROMIUM ?? "/usr/bin/chromium";

/** Chromium flags for a headless, offline, quiet browser. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * Why the browser tests cannot run here, or null when they can. Under CI=true a missing
 * browser or UI is an error; otherwise the tests are skipped with a notice.
 */
export function browserMissing(): string | null {
  const missing = !existsSync(CHROMIUM)
    ? `chromium not found at ${CHROMIUM} (install Debian's chromium package)`
    : defaultWebRoot() === null
      ? "the web UI is not built (run npm run build)"
      : null;
  if (missing && process.env.CI) throw new Error(`web UI browser tests cannot run in CI: ${missing}`);
  if (missing) console.warn(`\n[web UI e2e] SKIPPED: ${missing}\n`);
  return missing;
}

/** A browser with a fresh, empty profile; `close` removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless chromium with a fresh profile. */
export async function launchBrowser(
  options: { viewport?: { width: number; height: number }; timeoutMs?: number } = {},
): Promise<TestBrowser> {
  const { chromium } = await import("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "dossier-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    ...(options.viewport ? { viewport: options.viewport } : {}),
  });
  // The machine may be busy running other tests at the same time.
  context.setDefaultTimeout(options.timeoutMs ?? 60_000);
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Records the page's console errors and uncaught exceptions in `errors`; returns the page. */
export function watchErrors(page: Page, errors: string[]): Page {
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
  return page;
}

let axeSource: string | undefined;

/** axe-core's serious and critical violations on the page, as `name: rule: targets`. */
export async function axeViolations(page: Page, name: string): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  // Evaluated over the DevTools protocol, which the page's script policy does not govern.
  const found = (await page.evaluate(`${axeSource}
    axe.run(document, { resultTypes: ["violations"] }).then((r) =>
      r.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))`)) as string[];
  return found.map((v) => `${name}: ${v}`);
}
