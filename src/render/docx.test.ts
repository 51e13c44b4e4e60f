/**
 * The DOCX report read back by an independent reader (mammoth, which maps Word's Heading 1–6
 * styles to h1–h6, lists to ul/ol, bookmarks to anchors and hyperlinks to links): the same
 * headings as the report, every reference once with its link, citations linking to their
 * reference's bookmark, and hostile text that stays text.
 */

import mammoth from "mammoth";
import { describe, expect, it } from "vitest";
import { parseHtml } from "../../test/inert-html.ts";
import { renderDocx } from "./docx.ts";
import { httpUrl, oneLine } from "./docx-inline.ts";
import {
  CHINESE_HEADINGS,
  CHINESE_REPORT,
  ENGLISH_HEADINGS,
  ENGLISH_REPORT,
  reportDocument,
} from "./test-fixtures.ts";

/** The document mammoth reads from the DOCX bytes, and its warnings. */
async function readBack(bytes: Uint8Array): Promise<{ doc: Document; messages: string[] }> {
  const { value, messages } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
  return { doc: parseHtml(value), messages: messages.map((m) => m.message) };
}

const texts = (doc: Document, selector: string) =>
  [...doc.querySelectorAll(selector)].map((e) => e.textContent?.trim() ?? "");

/** The paragraphs after the References heading (its label in the report's language). */
function referenceEntries(doc: Document, heading_ = "References"): Element[] {
  const heading = [...doc.querySelectorAll("h2")].find((h) => h.textContent === heading_);
  const out: Element[] = [];
  for (let e = heading?.nextElementSibling; e; e = e.nextElementSibling) out.push(e);
  return out;
}

describe("DOCX report", () => {
  it("has the report's headings as Word headings, in order, under the title", async () => {
    const bytes = await renderDocx(ENGLISH_REPORT);
    expect(Buffer.from(bytes.subarray(0, 2)).toString()).toBe("PK");
    const { doc, messages } = await readBack(bytes);
    expect(messages).toEqual([]);
    expect(texts(doc, "h1")).toEqual(["Heat pumps in cold climates"]);
    expect(texts(doc, "h2, h3")).toEqual([...ENGLISH_HEADINGS, "References"]);
    expect(texts(doc, "h3")).toEqual(["Defrost cycles"]);
  });

  it("lists every reference once, each with its bookmark; http(s) sources are links, a local path is text", async () => {
    const { doc } = await readBack(await renderDocx(ENGLISH_REPORT));
    const entries = referenceEntries(doc);
    expect(entries).toHaveLength(ENGLISH_REPORT.references.length);
    for (const [i, r] of ENGLISH_REPORT.references.entries()) {
      const entry = entries[i]!;
      expect(entry.querySelector(`a[id="ref_${r.number}"]`)).not.toBeNull();
      expect(entry.textContent).toContain(`[${r.number}] ${r.title}.`);
      expect(entry.textContent).toContain(r.locator);
      const link = entry.querySelector("a[href]");
      if (r.kind === "web") expect(link?.getAttribute("href")).toBe(r.locator);
      else expect(link).toBeNull();
    }
  });

  it("links every citation to its reference's bookmark", async () => {
    const { doc } = await readBack(await renderDocx(ENGLISH_REPORT));
    const targets = [...doc.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute("href"));
    // [1], [1, 2], [2], [3] in the table, [3], [4], [4].
    expect(targets).toEqual(["#ref_1", "#ref_1", "#ref_2", "#ref_2", "#ref_3", "#ref_3", "#ref_4", "#ref_4"]);
    for (const target of new Set(targets))
      expect(doc.querySelector(`a[id="${target!.slice(1)}"]`)).not.toBeNull();
    // A number that is not a reference stays text.
    const stray = reportDocument({ title: "T", body: "# T\n\nSee [7] and [1].\n", references: [] });
    const { doc: plain } = await readBack(await renderDocx(stray));
    expect(plain.querySelectorAll("a")).toHaveLength(0);
    expect(plain.body.textContent).toContain("See [7] and [1].");
  });

  it("keeps lists, the table, the code and the quote", async () => {
    const { doc } = await readBack(await renderDocx(ENGLISH_REPORT));
    expect(texts(doc, "ul > li").map((t) => t.replace(/\s+/g, " "))).toEqual([
      "Installation costs fell in 2025 [3].",
      "Subsidies cover up to a third.Some regions add more.",
      "Some regions add more.",
    ]);
    expect(texts(doc, "ol > li")).toEqual(["Insulate first.", "Size the unit to the load [4]."]);
    const rows = [...doc.querySelectorAll("table tr")].map((tr) =>
      [...tr.querySelectorAll("td, th")].map((c) => c.textContent?.trim()),
    );
    expect(rows).toEqual([
      ["Country", "Payback (years)"],
      ["Norway", "6 [3]"],
      ["Canada", "9"],
    ]);
    expect(doc.querySelectorAll('table a[href="#ref_3"]')).toHaveLength(1);
    expect(doc.body.textContent).toContain("cop = heat_out / electricity_in");
    expect(doc.body.textContent).toContain("Quoted figures are for air-to-water units.");
    expect(doc.body.textContent).toContain("Sales keep rising in every market studied");
    expect(texts(doc, "strong")).toContain("in every market");
  });

  it("keeps Chinese headings and text", async () => {
    const { doc } = await readBack(await renderDocx(CHINESE_REPORT));
    expect(texts(doc, "h1")).toEqual(["寒冷地区的热泵"]);
    expect(texts(doc, "h2")).toEqual([...CHINESE_HEADINGS, "参考文献"]);
    expect(referenceEntries(doc, "参考文献")).toHaveLength(2);
    expect(doc.body.textContent).toContain("性能系数仍高于二");
  });
});

const HOSTILE = [
  "<script>alert(1)</script>",
  '<a href="javascript:alert(1)">click</a>',
  "<img src=x onerror=alert(1)>",
  "[click](javascript:alert(1))",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](vbscript:msgbox(1))",
  "[click][r]\n\n[r]: javascript:alert(1)",
  "<javascript:alert(1)>",
  "![x](javascript:alert(1))",
  '<w:hyperlink r:id="rId1"/></w:t></w:r>',
  "\u001b]0;pwned\u0007\u001b[2J red \u0001\ufffe",
];

describe("DOCX report with hostile input", () => {
  it.each(HOSTILE)(
    "keeps %j as text: no link but http(s) and the report's own bookmarks",
    async (payload) => {
      const doc = reportDocument({
        title: `Title ${payload}`,
        query: `Question ${payload}`,
        body: `# Title ${payload}\n\n## Findings ${payload}\n\nThe figure rose [1]. ${payload}\n\n- item ${payload}\n`,
        references: [
          {
            number: 1,
            sourceId: "s1",
            kind: "web",
            title: `Source ${payload}`,
            locator: "javascript:alert(1)",
            accessed: "2026-01-02",
          },
          {
            number: 2,
            sourceId: "s2",
            kind: "web",
            title: "Data",
            locator: "data:text/html,<script>alert(1)</script>",
            accessed: "2026-01-02",
          },
          {
            number: 3,
            sourceId: "s3",
            kind: "web",
            title: "Fine",
            locator: "https://ok.example/a",
            accessed: "2026-01-02",
          },
        ],
      });
      const { doc: read, messages } = await readBack(await renderDocx(doc));
      expect(messages).toEqual([]);
      expect(read.querySelectorAll("script, img, iframe, object, embed, svg")).toHaveLength(0);
      const hrefs = [...read.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")!);
      for (const href of hrefs) expect(href).toMatch(/^(#ref_[123]|https:\/\/ok\.example\/a)$/);
      expect(hrefs).toContain("https://ok.example/a");
      expect(hrefs).toContain("#ref_1");
      // The title is shown as written, never as markup.
      expect(read.querySelector("h1")?.textContent).toBe(oneLine(`Title ${payload}`));
      if (payload.startsWith("<script>")) {
        expect(read.querySelector("h1")?.textContent).toBe("Title <script>alert(1)</script>");
        expect(read.querySelector("h2")?.textContent).toBe("Findings <script>alert(1)</script>");
      }
      const entries = referenceEntries(read);
      expect(entries).toHaveLength(3);
      expect(entries[0]!.textContent).toContain("javascript:alert(1)");
      expect(entries[1]!.textContent).toContain("data:text/html,<script>alert(1)</script>");
      expect(read.body.textContent).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/);
    },
  );

  it("links only http(s) URLs", () => {
    expect(httpUrl("https://a.example/x?q=1")).toBe("https://a.example/x?q=1");
    expect(httpUrl("HTTP://A.example")).toBe("http://a.example/");
    for (const bad of [
      "javascript:alert(1)",
      "mailto:a@b.c",
      "file:///etc/passwd",
      "//evil.example",
      "https://a b",
      "ftp://x",
    ])
      expect(httpUrl(bad)).toBeNull();
  });
});
