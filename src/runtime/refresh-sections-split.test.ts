/**
 * A report body cut into sections for a refresh: a section starts only at a line beginning `## `
 * outside a fence, a fence opens only at a line's start, a body starting with a section has an
 * empty introduction, a heading's title is trimmed, and a rewritten section's content is trimmed
 * and ends with the blank lines the section ended with (a line break when it ended with none).
 */

import { describe, expect, it } from "vitest";
import { splitSections, withContent } from "./refresh-sections.ts";

describe("splitSections", () => {
  it("starts a section only at a line beginning with `## `", () => {
    const body = "# T\n\nIntro with ## inside [1].\n\n## One  \n\nText [2] and `## not` either.\n";
    const sections = splitSections(body);
    expect(sections.map((s) => [s.heading, s.title, s.numbers])).toEqual([
      ["# T", "Introduction", [1]],
      ["## One  ", "One", [2]],
    ]);
    expect(sections.map((s) => s.text).join("")).toBe(body);
  });

  it("opens a fence only at a line's start, so inline backticks hide no section", () => {
    const body = "# T\n\nRun ```npm test``` first.\n\n## One\n\nA.\n\n~~~\n## fenced\n~~~\n\n## Two\n\nB.\n";
    expect(splitSections(body).map((s) => s.title)).toEqual(["Introduction", "One", "Two"]);
  });

  it("gives a body that starts with a section an empty introduction", () => {
    const sections = splitSections("## One\n\nA [1].\n");
    expect(sections.map((s) => [s.index, s.heading, s.title, s.text])).toEqual([
      [0, "", "Introduction", ""],
      [1, "## One", "One", "## One\n\nA [1].\n"],
    ]);
  });
});

describe("withContent", () => {
  it("puts trimmed content under the heading, ending as the section ended", () => {
    const [, one, two] = splitSections("# T\n\n## One\n\nOld.\n\n\n## Two\n\nOld two.");
    expect(withContent(one!, "\n  New [3].  \n")).toBe("## One\n\nNew [3].\n\n\n");
    expect(withContent(two!, "New two.")).toBe("## Two\n\nNew two.\n");
  });
});
