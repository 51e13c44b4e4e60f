import { describe, expect, it } from "vitest";
import {
  isReferencesTitle,
  lineEnding,
  parseHeading,
  plainLines,
  readMarkdown,
  referencesSpan,
  referencesSpans,
} from "./markdown.ts";

const codeLines = (md: string) =>
  readMarkdown(md)
    .lines.filter((l) => l.inCode)
    .map((l) => l.line);

describe("fenced code", () => {
  it("finds ``` and ~~~ fences with their lines, fences included", () => {
    const md = [
      "a",
      "```ts",
      "# not a heading",
      "```",
      "b",
      "~~~",
      "~~~ still code",
      "```",
      "~~~~",
      "c",
    ].join("\n");
    const doc = readMarkdown(md);
    expect(doc.fences).toEqual([
      { start: 2, end: 4, closed: true, marker: "`" },
      { start: 6, end: 9, closed: true, marker: "~" },
    ]);
    expect(codeLines(md)).toEqual([2, 3, 4, 6, 7, 8, 9]);
    expect(doc.headings).toEqual([]);
  });

  it("closes a fence only with the same character, at least as long, and nothing after it", () => {
    expect(readMarkdown("````\nx\n```\ny\n````\nz").fences).toEqual([
      { start: 1, end: 5, closed: true, marker: "`" },
    ]);
    expect(readMarkdown("```\nx\n``` not a close\n```").fences[0]).toMatchObject({ end: 4, closed: true });
    expect(readMarkdown("````\nx\n```").fences[0]).toMatchObject({ end: 3, closed: false });
    expect(readMarkdown("~~~\nx\n```").fences[0]).toMatchObject({ end: 3, closed: false });
  });

  it("runs an unclosed fence to the end of the document, or of its list item or quote", () => {
    expect(readMarkdown("text\n```\ncode\n\n## not a heading").fences).toEqual([
      { start: 2, end: 5, closed: false, marker: "`" },
    ]);
    expect(readMarkdown("text\n~~~").fences).toEqual([{ start: 2, end: 2, closed: false, marker: "~" }]);
    expect(codeLines("- a\n  ```\n  code\n- b\n\nafter")).toEqual([2, 3]);
    expect(codeLines("> ```\n> q\n\nafter")).toEqual([1, 2]);
  });

  it("does not take a backtick fence whose info string holds a backtick, nor indented code", () => {
    expect(codeLines("``` a`b\nnot code")).toEqual([]);
    expect(codeLines("para\n\n    indented\n\nafter")).toEqual([]);
  });

  it("keeps line numbers with CRLF and lone CR line endings", () => {
    expect(codeLines("a\r\n```\r\nx\r\n```\r\nb")).toEqual([2, 3, 4]);
    expect(readMarkdown("a\rb\n## H").headings[0]!.line).toBe(2);
    expect(lineEnding("a\r\nb")).toBe("\r\n");
    expect(lineEnding("a\nb\r\n")).toBe("\n");
  });

  it("gives the lines outside code", () => {
    expect(plainLines(readMarkdown("a\n```\nx\n```\nb")).map((l) => l.text)).toEqual(["a", "b"]);
  });
});

describe("headings", () => {
  it("reads ATX and setext headings with levels, titles and lines", () => {
    const md = ["# Title #", "text", "", "Setext two", "----------", "", "### Three", "  ## Indented"].join(
      "\n",
    );
    expect(readMarkdown(md).headings).toEqual([
      { level: 1, title: "Title", line: 1, endLine: 1, style: "atx" },
      { level: 2, title: "Setext two", line: 4, endLine: 5, style: "setext" },
      { level: 3, title: "Three", line: 7, endLine: 7, style: "atx" },
      { level: 2, title: "Indented", line: 8, endLine: 8, style: "atx" },
    ]);
  });

  it("needs a space after the hashes and ignores headings in code", () => {
    expect(readMarkdown("#hashtag\n####### seven\n```\n# code\n```").headings).toEqual([]);
  });

  it("finds headings inside list items and quotes at their lines", () => {
    const doc = readMarkdown("- a\n  ## In item\n\n> ### In quote");
    expect(doc.headings.map((h) => [h.level, h.title, h.line])).toEqual([
      [2, "In item", 2],
      [3, "In quote", 4],
    ]);
  });

  it("parses one line as an ATX heading", () => {
    expect(parseHeading("## A title ##")).toEqual({ level: 2, title: "A title" });
    expect(parseHeading("#")).toEqual({ level: 1, title: "" });
    expect(parseHeading("    ## code")).toBeNull();
    expect(parseHeading("text")).toBeNull();
  });
});

describe("references titles", () => {
  // Every title the four recognisers this reader replaced accepted.
  const variants = [
    "References",
    "Reference",
    "Reference list",
    "Sources",
    "Source",
    "Source list",
    "Sources et références",
    "Bibliography",
    "Works Cited",
    "Citations",
    "参考文献",
    "參考文獻",
    "参考文献一覧",
    "参考资料",
    "參考資料",
    "参考来源",
    "引用来源",
    "引用文献",
    "引用",
    "资料来源",
    "資料來源",
    "来源",
    "出处",
    "出典",
    "참고 문헌",
    "참고문헌",
    "참고 자료",
    "Literatur",
    "Literaturverzeichnis",
    "Quellen",
    "Références",
    "Referencias",
    "Fuentes",
    "Referências",
    "Fontes",
    "Riferimenti",
    "Fonti",
    "Bibliografia",
    "Bibliographie",
    "Bibliografía",
  ];

  it("accepts each variant, in any case, numbered, bold or with a colon", () => {
    for (const v of variants) {
      for (const form of [
        v,
        v.toUpperCase(),
        `7. ${v}`,
        `7.1 ${v}`,
        `**${v}**`,
        `__${v}:__`,
        `${v}:`,
        `${v}：`,
      ]) {
        expect([form, isReferencesTitle(form)]).toEqual([form, true]);
      }
    }
  });

  it("refuses titles that only start with or contain a variant", () => {
    for (const title of [
      "Sources of growth",
      "References and further reading",
      "Resources",
      "Open sources",
      "参考",
    ]) {
      expect([title, isReferencesTitle(title)]).toEqual([title, false]);
    }
  });

  it("finds headings and stand-alone title lines outside code, with their levels", () => {
    const md = [
      "## 参考文献", // 1
      "**Sources:**", // 2
      "References:", // 3
      "#Bibliography", // 4
      "Sources say the market grew.", // 5
      "```", // 6
      "## References", // 7
      "```", // 8
      "### 7. References", // 9
      "Sources", // 10
      "-------", // 11
    ].join("\n");
    expect(readMarkdown(md).referenceTitles).toEqual([
      { line: 1, level: 2 },
      { line: 2, level: null },
      { line: 3, level: null },
      { line: 4, level: null },
      { line: 9, level: 3 },
      { line: 10, level: 2 },
    ]);
  });

  it("spans a references section to the next heading of its level or higher, or to the end", () => {
    const md = [
      "# R",
      "## References",
      "1. a",
      "### Web",
      "2. b",
      "## Appendix",
      "x",
      "**Sources**",
      "3. c",
      "#### Note",
      "y",
    ];
    const doc = readMarkdown(md.join("\n"));
    expect(doc.referenceTitles.map((t) => referencesSpan(doc, t))).toEqual([
      { start: 2, end: 5 },
      { start: 8, end: 9 },
    ]);
    const end = readMarkdown("# R\n\ntext\n\n## Sources\n\n1. a\n");
    expect(referencesSpans(end)).toEqual([{ start: 5, end: 8 }]);
  });

  it("merges overlapping sections", () => {
    const doc = readMarkdown("## References\n**Sources**\n1. a\n## Next");
    expect(referencesSpans(doc)).toEqual([{ start: 1, end: 3 }]);
  });
});
