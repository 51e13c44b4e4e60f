import { describe, expect, it } from "vitest";
import { articleHtml, FAKE_WEB_TEXT } from "../../../test/fake-web/index.ts";
import { fragmentToMarkdown, htmlToMarkdown, tidyMarkdown } from "./html-to-markdown.ts";

describe("htmlToMarkdown", () => {
  const page = htmlToMarkdown(articleHtml(), "https://news.example/energy/tidal-power");

  it("keeps the article and drops navigation, sidebar, footer, scripts and styles", () => {
    expect(page.readability).toBe(true);
    expect(page.markdown).toContain(FAKE_WEB_TEXT.articleSentence);
    expect(page.markdown).toContain(FAKE_WEB_TEXT.articleLateSentence);
    for (const phrase of FAKE_WEB_TEXT.boilerplate) expect(page.markdown).not.toContain(phrase);
    expect(page.markdown).not.toContain("should never run");
    expect(page.markdown).not.toContain("font-family");
  });

  it("writes headings and a GFM table, and keeps link URLs apart from the text", () => {
    expect(page.markdown).toMatch(/^## Output by year$/m);
    expect(page.markdown).toContain("| Year | Output (GWh) |\n| --- | --- |\n| 2024 | 1.2 |\n| 2025 | 1.4 |");
    expect(page.markdown).toContain("The full figures are in the 2025 project report.");
    expect(page.markdown).not.toContain("](");
    expect(page.markdown).not.toContain("https://");
    expect(page.links).toContainEqual({
      text: "2025 project report",
      url: `https://news.example${FAKE_WEB_TEXT.articleLinkPath}`,
    });
  });

  it("takes the title from the page and the language from <html lang>", () => {
    expect(page.title).toContain(FAKE_WEB_TEXT.articleTitle);
    expect(page.lang).toBe("en");
  });

  it("falls back to the body text when Readability finds no article", () => {
    const html = `<html><head><title>Tiny</title><script>var x = 1;</script></head><body><aside>Only aside text with <a href="x">a link</a>.</aside></body></html>`;
    const result = htmlToMarkdown(html, "https://example.org/dir/page");
    expect(result).toEqual({
      title: "Tiny",
      markdown: "Only aside text with a link.",
      links: [{ text: "a link", url: "https://example.org/dir/x" }],
      readability: false,
    });
  });

  it("returns empty Markdown for an empty page", () => {
    const result = htmlToMarkdown("<html><body></body></html>", "https://example.org/");
    expect(result).toMatchObject({ title: "", markdown: "", links: [], readability: false });
  });

  it("leaves no image markup, alt text or image caption", () => {
    const html = `<body><figure><img src="/a.png" alt="Harbour at dusk"><figcaption>The harbour at dusk.</figcaption></figure>
      <p>See <img src="/b.png" alt="a chart"> and <picture><source srcset="/c.webp"><img src="/c.png"></picture> here.</p></body>`;
    const markdown = htmlToMarkdown(html, "https://example.org/").markdown;
    expect(markdown).toBe("See and here.");
  });

  it("lists each http(s) link once, absolute, without fragments, and skips other schemes", () => {
    const html = `<body><p><a href="/x#top">One</a> <a href="/x">Again</a> <a href="mailto:a@b.c">Mail</a>
      <a href="javascript:void(0)">Run</a> <a href="#note">Note</a> <a href="https://other.example/y?q=1">Other</a></p></body>`;
    const result = htmlToMarkdown(html, "https://example.org/dir/");
    expect(result.markdown).toBe("One Again Mail Run Note Other");
    expect(result.links).toEqual([
      { text: "One", url: "https://example.org/x" },
      { text: "Note", url: "https://example.org/dir/" },
      { text: "Other", url: "https://other.example/y?q=1" },
    ]);
  });

  it("writes a header-less table as a GFM table with its first row as header", () => {
    const html = `<table><tr><td>Port</td><td>Boats</td></tr><tr><td>Digby</td><td colspan="1">12</td></tr>
      <tr><td>Saint <b>John</b> | NB</td><td>7<br>(2025)</td></tr><tr><td colspan="2">Total 19</td></tr></table>`;
    expect(fragmentToMarkdown(html).markdown).toBe(
      "| Port | Boats |\n| --- | --- |\n| Digby | 12 |\n| Saint **John** \\| NB | 7 (2025) |\n| Total 19 |  |",
    );
  });

  it("turns layout tables into paragraphs", () => {
    const html = `<table role="presentation"><tr><td>Left column text.</td><td>Right column text.</td></tr></table>
      <table><tr><td><p>First block.</p><p>Second block.</p></td><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></table>
      <table><tr><td>Only one column.</td></tr><tr><td>Still one.</td></tr></table>`;
    expect(fragmentToMarkdown(html).markdown).toBe(
      "Left column text.\n\nRight column text.\n\nFirst block.\n\nSecond block.\n\n| a | b |\n| --- | --- |\n\nOnly one column.\n\nStill one.",
    );
  });

  it("writes emphasis with asterisks, never underscores that would glue to words", () => {
    const html = `<p>An <em>emphasised</em> and <strong>strong</strong> word.</p>`;
    expect(fragmentToMarkdown(html).markdown).toBe("An *emphasised* and **strong** word.");
  });

  it("tidies trailing spaces and blank lines", () => {
    expect(tidyMarkdown("a  \n\n\n\nb\n")).toBe("a\n\nb");
  });
});
