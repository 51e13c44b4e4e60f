import { describe, expect, it } from "vitest";
import { GARBLED_GLYPHS, makeFixturePdf } from "../fetch/pdf-test-fixtures.ts";
import { extractDocument, extractPlainText } from "./extract.ts";
import { extractHtml } from "./extract-html.ts";
import { extractMarkdown, inlineText } from "./extract-markdown.ts";
import { makePdf, PDF_PAGES, pseudoRandomBytes } from "./test-fixtures.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("extractMarkdown", () => {
  it("builds heading paths and slugs from ATX and setext headings", () => {
    const md = [
      "Preamble line.",
      "",
      "Top Title",
      "=========",
      "",
      "Intro.",
      "",
      "## Part *One*",
      "",
      "First part.",
      "",
      "#### Deep ####",
      "",
      "Deep text.",
      "",
      "Part Two",
      "--------",
      "Second part,",
      "two lines.",
    ].join("\n");
    expect(extractMarkdown(md, "file.md")).toEqual({
      title: "Top Title",
      sections: [
        { headingPath: [], anchor: "", paragraphs: ["Preamble line."] },
        { headingPath: ["Top Title"], anchor: "top-title", paragraphs: ["Intro."] },
        { headingPath: ["Top Title", "Part One"], anchor: "part-one", paragraphs: ["First part."] },
        { headingPath: ["Top Title", "Part One", "Deep"], anchor: "deep", paragraphs: ["Deep text."] },
        {
          headingPath: ["Top Title", "Part Two"],
          anchor: "part-two",
          paragraphs: ["Second part,\ntwo lines."],
        },
      ],
    });
  });

  it("keeps fenced code as one block and ignores headings inside it", () => {
    const md = "# A\n\n```md\n# not a heading\n\nstill code\n```\nafter\n";
    expect(extractMarkdown(md, "f.md").sections).toEqual([
      { headingPath: ["A"], anchor: "a", paragraphs: ["```md\n# not a heading\n\nstill code\n```", "after"] },
    ]);
  });

  it("drops thematic breaks", () => {
    expect(extractMarkdown("one\n\n---\n\n* * *\n\ntwo\n", "f.md").sections).toEqual([
      { headingPath: [], anchor: "", paragraphs: ["one", "two"] },
    ]);
  });

  it("drops front matter and takes its title", () => {
    const md = '---\ntitle: "Front Title"\ntags: [a]\n---\n# Heading\n\nBody.\n';
    expect(extractMarkdown(md, "f.md")).toEqual({
      title: "Front Title",
      sections: [{ headingPath: ["Heading"], anchor: "heading", paragraphs: ["Body."] }],
    });
  });

  it("falls back to the file name as title and does not treat #tags as headings", () => {
    expect(extractMarkdown("#tag is not a heading\n", "notes.md")).toEqual({
      title: "notes.md",
      sections: [{ headingPath: [], anchor: "", paragraphs: ["#tag is not a heading"] }],
    });
  });

  it("reduces inline Markdown of headings to text", () => {
    expect(inlineText("[Link](http://x) and **bold** `code` _em_ ![img](a.png)")).toBe(
      "Link and bold code em img",
    );
  });
});

describe("extractHtml", () => {
  it("splits at headings, keeps pre blocks and drops scripts, styles and nav", () => {
    const html = `<html><head><title> Doc  Title </title></head><body>
      <nav><a>menu</a></nav><p>Lead <em>text</em>.</p>
      <h1>Main</h1><div>Para one<br>line two</div><h3>Detail &amp; More</h3>
      <pre>  code
    indented</pre><ul><li>item a</li><li>item b</li></ul><script>evil()</script><style>p{}</style>
      <h2>Second</h2><p>End.</p></body></html>`;
    expect(extractHtml(html, "page.html")).toEqual({
      title: "Doc Title",
      sections: [
        { headingPath: [], anchor: "", paragraphs: ["Lead text."] },
        { headingPath: ["Main"], anchor: "main", paragraphs: ["Para one line two"] },
        {
          headingPath: ["Main", "Detail & More"],
          anchor: "detail--more",
          paragraphs: ["  code\n    indented", "item a", "item b"],
        },
        { headingPath: ["Main", "Second"], anchor: "second", paragraphs: ["End."] },
      ],
    });
  });

  it("takes the first h1 as title when there is no <title>", () => {
    expect(extractHtml("<h1>Only H1</h1><p>x</p>", "f.html").title).toBe("Only H1");
    expect(extractHtml("<p>x</p>", "f.html").title).toBe("f.html");
  });
});

describe("extractPlainText", () => {
  it("splits paragraphs at blank lines", () => {
    expect(extractPlainText("one\ntwo\r\n\r\n\nthree  \n", "t.txt")).toEqual({
      title: "t.txt",
      sections: [{ headingPath: [], anchor: "", paragraphs: ["one\ntwo", "three"] }],
    });
  });
});

describe("extractDocument", () => {
  it("reads a PDF page by page with page anchors and the Title metadata", async () => {
    const outcome = await extractDocument(await makePdf(PDF_PAGES), "pdf", "paper.pdf");
    expect(outcome).toEqual({
      ok: true,
      document: {
        title: "Cell Biology Notes",
        sections: PDF_PAGES.map((text, i) => ({
          headingPath: [],
          anchor: `page=${i + 1}`,
          page: i + 1,
          paragraphs: [text],
        })),
      },
    });
  });

  it("reports a corrupt PDF", async () => {
    const corrupt = pseudoRandomBytes(1024);
    corrupt.set(bytes("%PDF-1.7\n"), 0);
    expect(await extractDocument(corrupt, "pdf", "x.pdf")).toMatchObject({
      ok: false,
      reason: "corrupt-pdf",
    });
    expect(await extractDocument(bytes("hello"), "pdf", "x.pdf")).toEqual({
      ok: false,
      reason: "corrupt-pdf",
      detail: "the PDF cannot be read: no %PDF- signature",
    });
  });

  it("leaves out PDF pages without extractable text and names them", async () => {
    const pdf = await makeFixturePdf(
      [{ text: "Readable first page." }, { glyphIds: GARBLED_GLYPHS }, { text: "A hyphen-\nated word." }],
      "Mixed",
    );
    expect(await extractDocument(pdf, "pdf", "mixed.pdf")).toEqual({
      ok: true,
      document: {
        title: "Mixed",
        sections: [
          { headingPath: [], anchor: "page=1", page: 1, paragraphs: ["Readable first page."] },
          { headingPath: [], anchor: "page=3", page: 3, paragraphs: ["A hyphenated word."] },
        ],
        pagesWithoutText: [2],
      },
    });
  });

  it("reports a PDF without text", async () => {
    expect(await extractDocument(await makePdf(["", ""]), "pdf", "scan.pdf")).toEqual({
      ok: false,
      reason: "no-text",
      detail: "no text layer (a scanned PDF?)",
    });
  });

  it("reports binary content and empty text", async () => {
    expect(await extractDocument(new Uint8Array([1, 0, 2]), "markdown", "x.md")).toMatchObject({
      ok: false,
      reason: "binary",
    });
    expect(await extractDocument(bytes(" \n\n "), "text", "x.txt")).toEqual({
      ok: false,
      reason: "no-text",
      detail: "no text to index",
    });
  });
});
