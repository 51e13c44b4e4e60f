import { describe, expect, it } from "vitest";
import { checkHeadings, normalizeTitle } from "./headings.ts";

describe("checkHeadings", () => {
  it("accepts a clean hierarchy", () => {
    const md = "# Report\n\nIntro.\n\n## One\n\nText.\n\n### One A\n\nText.\n\n## Two\n\nText.\n";
    const result = checkHeadings(md);
    expect(result.errors).toBe(0);
    expect(result.headings.map((h) => [h.level, h.title, h.line])).toEqual([
      [1, "Report", 1],
      [2, "One", 5],
      [3, "One A", 9],
      [2, "Two", 13],
    ]);
  });

  it("finds skipped levels, empty sections and duplicate sibling titles", () => {
    const md = [
      "# Report", // 1: has children -> not empty
      "## Background", // 2: empty (next is a sibling)
      "## Market", // 3
      "#### Detail", // 4: skipped level (2 -> 4)
      "Text.",
      "## background", // 6: duplicate of "Background" among siblings
      "Text.",
      "## Outlook", // 8: empty at the end
    ].join("\n");
    const result = checkHeadings(md);
    expect(result.problems.map((p) => [p.kind, p.line])).toEqual([
      ["empty-section", 2],
      ["skipped-level", 4],
      ["duplicate-title", 6],
      ["empty-section", 8],
    ]);
    expect(result).toMatchObject({ skippedLevels: 1, emptySections: 2, duplicateTitles: 1, errors: 4 });
  });

  it("allows the same title under different parents and ignores code blocks", () => {
    const md = "## A\n### Summary\nx\n## B\n### Summary\ny\n```\n# not a heading\n```\n";
    const result = checkHeadings(md);
    expect(result.errors).toBe(0);
    expect(result.headings).toHaveLength(4);
  });

  it("reads setext headings and ignores headings in ~~~ and unclosed fences", () => {
    const md = "Report\n======\n\nIntro.\n\nPart\n----\n\nText.\n\n~~~\n# no\n~~~\n```\n## no\n";
    const result = checkHeadings(md);
    expect(result.headings.map((h) => [h.level, h.title, h.line])).toEqual([
      [1, "Report", 1],
      [2, "Part", 6],
    ]);
    expect(result.errors).toBe(0);
  });

  it("normalizes numbering and punctuation when comparing titles", () => {
    expect(normalizeTitle("2.1 Market Size:")).toBe("market size");
    expect(normalizeTitle("一、市场规模")).toBe("市场规模");
  });
});
