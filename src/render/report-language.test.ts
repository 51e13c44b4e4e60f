/**
 * A report reads right in its language in every format: a Chinese, a French and an English
 * report render every fixed label (the meta line, the References heading, each reference's
 * access note, the claim-check line and the per-claim marks) from the language's table — in the
 * Markdown, the HTML, the DOCX read back by mammoth's raw text and the PDF read back by
 * pdftotext — and no label of another language. A title ending in a colon keeps it.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mammoth from "mammoth";
import { describe, expect, it } from "vitest";
import { parseHtml } from "../../test/inert-html.ts";
import { pdfText, pdfToolsAnswer } from "../../test/pdf-tools.ts";
import { renderReferences } from "../core/citations.ts";
import { type ClaimCheck, claimSummaryLine, claimTally } from "../core/claim-verdicts.ts";
import type { ReportDocument } from "../core/report.ts";
import { reportLabels } from "../core/report-labels.ts";
import { extractClaims } from "../eval/claims/extract.ts";
import { renderDocx } from "./docx.ts";
import { renderHtml } from "./html.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderPdf } from "./pdf.ts";
import { reportDocument } from "./test-fixtures.ts";

const BODIES: Record<string, { title: string; query: string; body: string }> = {
  en: {
    title: "Heat pumps",
    query: "How do heat pumps perform in the cold?",
    body: "# Heat pumps\n\n## Findings\n\nEmissions fell by 40% [1]. Sales doubled [2].\n",
  },
  fr: {
    title: "Pompes à chaleur",
    query: "Comment les pompes à chaleur se comportent-elles par grand froid ?",
    body: "# Pompes à chaleur\n\n## Résultats\n\nLes émissions ont baissé de 40 % [1]. Les ventes ont doublé [2].\n",
  },
  zh: {
    title: "热泵",
    query: "热泵在严寒中的表现如何？",
    body: "# 热泵\n\n## 发现\n\n排放下降了百分之四十 [1]。销量翻了一番 [2]。\n",
  },
};

function report(language: string): ReportDocument {
  const { title, query, body } = BODIES[language]!;
  const references = [
    {
      number: 1,
      sourceId: "s1",
      kind: "web" as const,
      title: "Key Principles:",
      locator: "https://example.org/1",
      accessed: "2026-01-02",
    },
    {
      number: 2,
      sourceId: "s2",
      kind: "local" as const,
      title: "Field notes",
      locator: "notes/field.md#winter",
      accessed: "2026-01-02",
    },
  ];
  const doc = reportDocument({ title, query, body, references, language });
  const check = (index: number, text: string, verdict: ClaimCheck["verdict"]): ClaimCheck => ({
    index,
    text,
    numbers: [index],
    evidenceIds: [`E${index}`],
    verdict,
    span: null,
    spanEvidenceId: null,
    reason: "judged",
    by: "judge",
  });
  const found = extractClaims(body);
  const claims = [
    check(found[0]!.index, found[0]!.text, "supported"),
    check(found[1]!.index, found[1]!.text, "partial"),
  ];
  const l = reportLabels(language);
  return {
    ...doc,
    markdown: `${body.trimEnd()}\n\n${renderReferences(references, l.references, 2, language)}`,
    verification: { mode: "judge", claims, ...claimTally(claims), revised: 0, dropped: 0 },
  };
}

/** The labels a reader must see, and English ones they must not (for the other languages). */
function expectLabels(text: string, language: string, where: string) {
  const l = reportLabels(language);
  const flat = text.replace(/\s+/g, " ");
  for (const label of [l.references, l.accessed("2026-01-02"), l.localDocument, l.claimCheck])
    expect(flat, `${where}: ${label}`).toContain(label);
  expect(flat, where).toContain("Key Principles:");
  expect(flat, where).not.toContain("Key Principles:.");
  if (language !== "en")
    for (const english of ["References", "accessed", "Claim check", "Research question", "local document"])
      expect(flat, `${where}: no "${english}"`).not.toContain(english);
}

describe("a report in its language, every format", () => {
  for (const language of ["zh", "fr", "en"]) {
    it(`${language}: Markdown, HTML and DOCX carry the language's labels only`, async () => {
      const doc = report(language);
      const l = reportLabels(language);
      const md = renderMarkdown(doc);
      expectLabels(md, language, "md");
      expect(md).toContain(claimSummaryLine(doc.verification!, language));
      const html = parseHtml(renderHtml(doc)).body.textContent ?? "";
      expectLabels(html, language, "html");
      expect(html).toContain(l.researchQuestion);
      expect(html).toContain(l.sources(2));
      const docx = (await mammoth.extractRawText({ buffer: Buffer.from(await renderDocx(doc)) })).value;
      expectLabels(docx, language, "docx");
      expect(docx).toContain(l.researchQuestion);
      // The claim-check line and the per-claim marks, as in the HTML report.
      expect(docx.replace(/\s+/g, " ")).toContain(claimSummaryLine(doc.verification!, language));
      expect(docx).toContain("[1] ✓");
      expect(docx).toContain(`[2] ${l.partial}`);
    });
  }

  if (pdfToolsAnswer())
    it("zh, fr, en: the PDF read back by pdftotext carries the language's labels only", {
      timeout: 180_000,
    }, async () => {
      const dir = mkdtempSync(join(tmpdir(), "dossier-pdf-language-"));
      try {
        for (const language of ["zh", "fr", "en"]) {
          const path = join(dir, `${language}.pdf`);
          writeFileSync(path, await renderPdf(report(language)));
          expectLabels(pdfText(path), language, `pdf ${language}`);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
});
