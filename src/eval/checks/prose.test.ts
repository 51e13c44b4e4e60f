import { describe, expect, it } from "vitest";
import { cleanInline, proseUnits, splitSentences } from "./prose.ts";

describe("splitSentences", () => {
  it("splits English sentences but not abbreviations, initials or decimals", () => {
    expect(splitSentences("Growth was 3.5% in the U.S. economy. Dr. Smith agreed! Did J. Doe? Yes.")).toEqual(
      ["Growth was 3.5% in the U.S. economy.", "Dr. Smith agreed!", "Did J. Doe?", "Yes."],
    );
  });

  it("splits Chinese sentences on full-width punctuation", () => {
    expect(splitSentences("销量增长了。预计明年将继续增长！是吗？")).toEqual([
      "销量增长了。",
      "预计明年将继续增长！",
      "是吗？",
    ]);
  });
});

describe("proseUnits", () => {
  it("keeps paragraphs, list items and table rows; drops code and the references section", () => {
    const md = [
      "# Title",
      "First line",
      "continues here [1].",
      "",
      "- item one",
      "- item **two**",
      "",
      "| a | b |",
      "|---|---|",
      "| x | y |",
      "",
      "```",
      "code",
      "```",
      "## References",
      "1. Source title",
      "## Appendix",
      "See [the site](https://example.com).",
    ].join("\n");
    expect(proseUnits(md).map((u) => [u.kind, u.text, u.line])).toEqual([
      ["heading", "Title", 1],
      ["paragraph", "First line continues here .", 2],
      ["list-item", "item one", 5],
      ["list-item", "item two", 6],
      ["table-row", "a | b", 8],
      ["table-row", "x | y", 10],
      ["heading", "Appendix", 17],
      ["paragraph", "See the site.", 18],
    ]);
  });

  it("drops a references section under a stand-alone title line and code in quotes or ~~~ fences", () => {
    const md = [
      "Body text.", // 1
      "> ```", // 2
      "> quoted code", // 3
      "> ```", // 4
      "~~~", // 5
      "fenced code", // 6
      "~~~", // 7
      "**Sources:**", // 8
      "1. A source title", // 9
      "## Next", // 10
      "More text.", // 11
    ].join("\n");
    expect(proseUnits(md).map((u) => [u.kind, u.text, u.line])).toEqual([
      ["paragraph", "Body text.", 1],
      ["heading", "Next", 10],
      ["paragraph", "More text.", 11],
    ]);
  });

  it("cleans citations, links and markup", () => {
    expect(
      cleanInline("A **bold** claim [E12, E15] with `code` and [link](http://x.y) <sup>[2]</sup>."),
    ).toBe("A bold claim with and link .");
  });
});
