/**
 * The PDF report, printed by chromium and read back by poppler's `pdftotext`: every section
 * heading and every reference is in its text (Chinese headings too), the citations link to
 * their reference inside the document and the references to their sources, and the page
 * requests nothing while it is printed. Skipped with a notice without chromium or pdftotext
 * (failed under DOSSIER_REQUIRE_SERVICES=1).
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfLinks, pdfText, pdfToolsAnswer } from "../../test/pdf-tools.ts";
import type { ReportDocument } from "../core/report.ts";
import { renderPdf } from "./pdf.ts";
import {
  CHINESE_HEADINGS,
  CHINESE_REPORT,
  ENGLISH_HEADINGS,
  ENGLISH_REPORT,
  reportDocument,
} from "./test-fixtures.ts";

const flat = (text: string) => text.replace(/\s+/g, " ");

if (pdfToolsAnswer()) {
  describe("PDF report", { timeout: 180_000 }, () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "dossier-pdf-test-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function print(doc: ReportDocument, name: string) {
      const bytes = await renderPdf(doc);
      const path = join(dir, `${name}.pdf`);
      writeFileSync(path, bytes);
      return { bytes, text: pdfText(path) };
    }

    it("has every section heading and every reference in its text, and working links", async () => {
      const { bytes, text } = await print(ENGLISH_REPORT, "english");
      expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
      const lines = text.split("\n").map((l) => l.trim());
      expect(lines).toContain(ENGLISH_REPORT.title);
      for (const heading of [...ENGLISH_HEADINGS, "References"]) expect(lines).toContain(heading);
      const body = flat(text);
      for (const r of ENGLISH_REPORT.references) {
        expect(body).toContain(`${r.title}. ${r.locator}`);
      }
      const { uris, destinations } = await pdfLinks(bytes);
      // References link to their http(s) sources; the local document is not a link.
      for (const r of ENGLISH_REPORT.references.filter((r) => r.kind === "web"))
        expect(uris).toContain(r.locator);
      expect(uris.some((u) => u.includes("sizing"))).toBe(false);
      // Every citation is a link to its reference inside the document.
      expect([...new Set(destinations)].sort()).toEqual(["ref-1", "ref-2", "ref-3", "ref-4"]);
      expect(destinations).toHaveLength(8);
    });

    it("keeps Chinese headings and text", async () => {
      const { text } = await print(CHINESE_REPORT, "chinese");
      const lines = text.split("\n").map((l) => l.trim());
      expect(lines).toContain(CHINESE_REPORT.title);
      for (const heading of CHINESE_HEADINGS) expect(lines).toContain(heading);
      expect(flat(text)).toContain("性能系数仍高于二");
      for (const r of CHINESE_REPORT.references) expect(flat(text)).toContain(r.title);
    });

    it("requests nothing while printing, not even an image kept in the report", async () => {
      const hits: string[] = [];
      const tracker: Server = createServer((req, res) => {
        hits.push(req.url ?? "");
        res.end();
      });
      await new Promise<void>((resolve) => tracker.listen(0, "127.0.0.1", resolve));
      try {
        // The document is given the tracker's own origin, so nothing but the block stops the image.
        const origin = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
        const url = `${origin}/px.png?q=question`;
        const doc = reportDocument({
          title: "Images",
          body: `# Images\n\n## Chart\n\n![chart](${url})\n\n<img src="${url}&raw=1">\n`,
          references: [],
        });
        const blocked: string[] = [];
        const bytes = await renderPdf(doc, {
          remoteImages: "keep",
          documentUrl: `${origin}/report.html`,
          onBlockedRequest: (u) => blocked.push(u),
        });
        expect(bytes.length).toBeGreaterThan(0);
        expect(blocked).toContain(url);
        expect(hits).toEqual([]);
      } finally {
        await new Promise((resolve) => tracker.close(resolve));
      }
    });
  });
}
