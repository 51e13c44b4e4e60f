import { describe, expect, it } from "vitest";
import { articleHtml, FAKE_WEB_TEXT } from "../../../test/fake-web/index.ts";
import { htmlToMarkdown, tidyMarkdown } from "./html-to-markdown.ts";

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

  it("writes headings, a GFM table and absolute links", () => {
    expect(page.markdown).toMatch(/^## Output by year$/m);
    expect(page.markdown).toContain("| Year | Output (GWh) |\n| --- | --- |\n| 2024 | 1.2 |\n| 2025 | 1.4 |");
    expect(page.markdown).toContain(
      `[2025 project report](https://news.example${FAKE_WEB_TEXT.articleLinkPath})`,
    );
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
      markdown: "Only aside text with [a link](https://example.org/dir/x).",
      readability: false,
    });
  });

  it("returns empty Markdown for an empty page", () => {
    const result = htmlToMarkdown("<html><body></body></html>", "https://example.org/");
    expect(result).toMatchObject({ title: "", markdown: "", readability: false });
  });

  it("keeps image alt text and drops images without one", () => {
    const html = `<body><p>See <img src="/a.png" alt="a chart"> and <img src="/b.png"> here.</p></body>`;
    expect(htmlToMarkdown(html, "https://example.org/").markdown).toBe(
      "See ![a chart](https://example.org/a.png) and  here.",
    );
  });

  it("tidies trailing spaces and blank lines", () => {
    expect(tidyMarkdown("a  \n\n\n\nb\n")).toBe("a\n\nb");
  });
});
