/**
 * `dossier research --format pdf,docx` in-process against the scripted loopback world: both
 * files are written next to the Markdown report, with its section headings and its references;
 * a PDF this machine cannot print is refused before the first model call, saying what to
 * install. The run itself needs chromium and pdftotext (skipped with a notice without them,
 * failed under DOSSIER_REQUIRE_SERVICES=1); the refusals need neither.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mammoth from "mammoth";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { parseHtml } from "../../../test/inert-html.ts";
import { pdfText, pdfToolsAnswer } from "../../../test/pdf-tools.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { dossierInWorld } from "../../../test/research/world-cli.ts";
import { readMarkdown } from "../../core/markdown.ts";

let world: ResearchWorld | undefined;
const servers: FakeOpenAI[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await world?.close();
  world = undefined;
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("formats refused before the first model call", () => {
  it("refuses pdf when chromium is not there, naming the package to install, and writes nothing", async () => {
    const root = mkdtempSync(join(tmpdir(), "dossier-formats-"));
    dirs.push(root);
    const model = await startFakeOpenAI({ replies: [] });
    servers.push(model);
    const run = await runCliInProcess(["research", "How do heat pumps perform?", "--format", "md,pdf"], {
      cwd: root,
      env: {
        HOME: root,
        DOSSIER_HOME: join(root, "h"),
        DOSSIER_MODEL: "openai-compatible:m",
        DOSSIER_BASE_URL: model.url,
        DOSSIER_CHROMIUM: join(root, "no-chromium"),
      },
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^dossier: error \[DEPENDENCY_MISSING\]: PDF reports need chromium: .*apt-get install chromium/,
    );
    expect(model.requests).toHaveLength(0);
    expect(existsSync(join(root, "h", "reports"))).toBe(false);
  });

  it("names the formats when one is unknown", async () => {
    const root = mkdtempSync(join(tmpdir(), "dossier-formats-"));
    dirs.push(root);
    const run = await runCliInProcess(["research", "How do heat pumps perform?", "--format", "md,xls"], {
      cwd: root,
      env: { HOME: root, DOSSIER_HOME: join(root, "h") },
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'dossier: error [INPUT_INVALID]: --format takes md, html, json, pdf and docx, got "xls"',
    );
  });
});

if (pdfToolsAnswer()) {
  describe("dossier research --format md,pdf,docx", { timeout: 240_000 }, () => {
    it("writes the PDF and the DOCX with the Markdown report's headings and references", async () => {
      world = await startResearchWorld({ subtasks: 3 });
      const run = await dossierInWorld(
        [
          "research",
          "How is topic adoption changing?",
          "--strategy",
          "minddr",
          "--json",
          "--format",
          "md,pdf,docx",
          "--out",
          "report",
        ],
        world,
      );
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout.trim());
      const [md, pdf, docx] = ["md", "pdf", "docx"].map((ext) => join(world!.home, `report.${ext}`));
      expect(summary.reportPaths).toEqual([md, pdf, docx]);

      // What the Markdown report has: its section headings and its numbered references.
      const markdown = readFileSync(md!, "utf8");
      const headings = readMarkdown(markdown)
        .headings.filter((h) => h.level >= 2)
        .map((h) => h.title);
      const references = [...markdown.matchAll(/^(\d+)\. (.+?)\. <(https?:\/\/[^>]+)>/gm)].map((m) => ({
        title: m[2]!,
        url: m[3]!,
      }));
      expect(headings.length).toBeGreaterThan(2);
      expect(headings).toContain("References");
      expect(references.length).toBe(summary.sources);
      expect(references.length).toBeGreaterThan(0);

      const text = pdfText(pdf!);
      const lines = text.split("\n").map((l) => l.trim());
      for (const heading of headings) expect(lines).toContain(heading);
      const flat = text.replace(/\s+/g, " ");
      for (const r of references) expect(flat).toContain(r.title);

      const { value } = await mammoth.convertToHtml({ path: docx! });
      const read = parseHtml(value);
      expect([...read.querySelectorAll("h2, h3")].map((h) => h.textContent)).toEqual(headings);
      const entries = [...read.querySelectorAll("a[id^='ref_']")];
      expect(entries).toHaveLength(references.length);
      const links = [...read.querySelectorAll("a[href^='http']")].map((a) => a.getAttribute("href"));
      for (const r of references) expect(links).toContain(r.url);
    });
  });
}
