/**
 * Which formats this machine can produce: a PDF needs playwright-core and a chromium
 * executable, and a missing one is a DEPENDENCY_MISSING error that says what to install.
 */

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import { checkFormatsAvailable, findChromium, formatUnavailable, pdfUnavailable } from "./format-support.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder holding `chromium` (executable or not). */
function binDir(executable: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "dossier-bin-"));
  dirs.push(dir);
  writeFileSync(join(dir, "chromium"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(dir, "chromium"), executable ? 0o755 : 0o644);
  return dir;
}

describe("finding chromium", () => {
  it("takes DOSSIER_CHROMIUM when it is an executable file, else finds chromium on PATH", () => {
    const dir = binDir(true);
    expect(findChromium({ PATH: dir })).toBe(join(dir, "chromium"));
    expect(findChromium({ PATH: "", DOSSIER_CHROMIUM: join(dir, "chromium") })).toBe(join(dir, "chromium"));
    expect(findChromium({ PATH: `${binDir(false)}:${dir}` })).toBe(join(dir, "chromium"));
  });

  it("finds nothing when PATH has no executable chromium, or DOSSIER_CHROMIUM names none", () => {
    expect(findChromium({ PATH: binDir(false) })).toBeNull();
    expect(findChromium({ PATH: "" })).toBeNull();
    // A DOSSIER_CHROMIUM that is wrong is not silently replaced by the one on PATH.
    expect(findChromium({ PATH: binDir(true), DOSSIER_CHROMIUM: "/nonexistent/chromium" })).toBeNull();
    expect(findChromium({ PATH: "", DOSSIER_CHROMIUM: binDir(true) })).toBeNull();
  });
});

describe("formats this machine cannot produce", () => {
  it("refuses pdf without chromium, saying what to install", () => {
    const none = pdfUnavailable({ PATH: "" }, () => true);
    expect(none).toBeInstanceOf(DossierError);
    expect(none?.code).toBe("DEPENDENCY_MISSING");
    expect(none?.message).toMatch(/apt-get install chromium/);
    expect(none?.details).toEqual({ format: "pdf", missing: "chromium" });
    const wrong = pdfUnavailable({ PATH: "", DOSSIER_CHROMIUM: "/nonexistent/chromium" }, () => true);
    expect(wrong?.message).toMatch(/DOSSIER_CHROMIUM=\/nonexistent\/chromium is not an executable file/);
  });

  it("refuses pdf without playwright-core, saying what to install", () => {
    const problem = pdfUnavailable({ PATH: binDir(true) }, () => false);
    expect(problem?.code).toBe("DEPENDENCY_MISSING");
    expect(problem?.message).toMatch(/npm install playwright-core/);
    expect(problem?.details).toEqual({ format: "pdf", missing: "playwright-core" });
  });

  it("accepts pdf with both, and md, html, json and docx always", () => {
    expect(pdfUnavailable({ PATH: binDir(true) }, () => true)).toBeNull();
    for (const format of ["md", "html", "json", "docx"] as const)
      expect(formatUnavailable(format, { PATH: "" })).toBeNull();
    expect(() => checkFormatsAvailable(["md", "html", "json", "docx"], { PATH: "" })).not.toThrow();
    expect(() => checkFormatsAvailable(["md", "pdf"], { PATH: "" })).toThrow(/DEPENDENCY_MISSING|chromium/);
  });
});
