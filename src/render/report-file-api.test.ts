/**
 * Writing a report in any format from the library (`import { renderReportFile, readReportFile,
 * documentOfBundle } from "dossier"`): a report document as DOCX read back by an independent
 * reader (mammoth) with its headings and references, and a stored run's report — written as md
 * and json only — as docx and html, rendered again from its JSON bundle to the very Markdown the
 * run wrote.
 */

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mammoth from "mammoth";
import { afterEach, describe, expect, it } from "vitest";
import { parseHtml } from "../../test/inert-html.ts";
import * as dossier from "../index.ts";
import { ENGLISH_HEADINGS, ENGLISH_REPORT } from "./test-fixtures.ts";

async function docxHeadings(bytes: Uint8Array): Promise<{ h1: string[]; h2: string[] }> {
  const { value } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
  const doc = parseHtml(value);
  const texts = (selector: string) =>
    [...doc.querySelectorAll(selector)].map((e) => e.textContent?.trim() ?? "");
  return { h1: texts("h1"), h2: texts("h2, h3") };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("renderReportFile from the library", () => {
  it("writes a report document as docx (bytes), md and html (text)", async () => {
    const docx = await dossier.renderReportFile(ENGLISH_REPORT, "docx");
    expect(docx).toBeInstanceOf(Uint8Array);
    expect(await docxHeadings(docx as Uint8Array)).toEqual({
      h1: [ENGLISH_REPORT.title],
      h2: [...ENGLISH_HEADINGS, "References"],
    });
    expect(await dossier.renderReportFile(ENGLISH_REPORT, "md")).toBe(dossier.renderMarkdown(ENGLISH_REPORT));
    const html = await dossier.renderReportFile(ENGLISH_REPORT, "html");
    expect(typeof html).toBe("string");
    expect(parseHtml(html as string).querySelector("h1")?.textContent).toBe(ENGLISH_REPORT.title);
  });

  it("writes a stored run's report in a format the run did not write", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "dossier-report-file-")));
    dirs.push(cwd);
    mkdirSync(join(cwd, "notes"));
    writeFileSync(
      join(cwd, "notes", "a.md"),
      "# Heat pumps\n\nHeat pumps kept a COP above 2 at minus 15 degrees.\n\n## Costs\n\nA heat pump cost 9000 euros to install.\n",
    );
    const d = dossier.createDossier({ cwd, env: {} });
    try {
      const result = await d.research("How do heat pumps perform?", {
        docs: "notes",
        formats: ["md", "json"],
      }).done;
      expect(result.status).toBe("completed");
      const mdPath = result.paths.find((p) => p.endsWith(".md"))!;
      const jsonPath = result.paths.find((p) => p.endsWith(".json"))!;
      expect(result.paths.some((p) => p.endsWith(".docx"))).toBe(false);

      // The bundle's document renders to the very Markdown the run wrote.
      const doc = dossier.documentOfBundle(readFileSync(jsonPath, "utf8"));
      expect(await dossier.renderReportFile(doc, "md")).toBe(readFileSync(mdPath, "utf8"));

      // A format the run did not write, from its stored bundle.
      const docx = await dossier.readReportFile(d.runs, result.runId, "docx");
      const headings = await docxHeadings(docx as Uint8Array);
      expect(headings.h1).toEqual([doc.title]);
      expect(headings.h2.at(-1)).toBe("References");
      const html = (await dossier.readReportFile(d.runs, result.runId, "html")) as string;
      expect(parseHtml(html).querySelector("h1")?.textContent).toBe(doc.title);
      await expect(dossier.readReportFile(d.runs, "nonexistent-run", "docx")).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    } finally {
      await d.close();
    }
  });
});
