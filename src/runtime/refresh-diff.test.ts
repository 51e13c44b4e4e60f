import { describe, expect, it } from "vitest";
import type { Reference } from "../core/citations.ts";
import { renderRedline, reportDiff } from "./refresh-diff.ts";
import { splitSections } from "./refresh-sections.ts";

const ref = (number: number, title: string, locator: string): Reference => ({
  number,
  sourceId: `s${number}`,
  kind: "web",
  title,
  locator,
  accessed: "2026-01-01",
});

/** A diff of a report whose second section is rewritten to `after` (its content). */
function diffOf(before: string, after: string) {
  const sections = splitSections(before);
  const target = sections[1]!;
  return reportDiff({
    runId: "r2",
    refreshOf: "r1",
    version: 2,
    before: sections,
    rewritten: new Map([[target.index, `${target.heading}\n\n${after}\n`]]),
    referencesBefore: [ref(2, "Old **page**", "https://a.example/")],
    referencesAfter: [ref(6, "New page", "https://b.example/")],
    pages: [],
  });
}

const BEFORE = "# Title\n\nIntro [2].\n\n## **Models** \\& prices\n\nThe old model cost $5 [2].\n";

describe("refresh diff: claims as readers read them", () => {
  it("has no escaped Markdown in claims or titles, and keeps bracketed numbers readable", () => {
    const diff = diffOf(
      BEFORE,
      "1\\. \\*\\*Clover Station Duo:\\*\\* ships in May \\[6\\] [6]. The **Lite** model costs *less* [6].",
    );
    expect(diff.sections[0]!.title).toBe("Models & prices");
    expect(diff.sectionsChanged).toEqual(["Models & prices"]);
    expect(diff.claimsAdded).toEqual(["Clover Station Duo: ships in May [6].", "The Lite model costs less."]);
    expect(diff.claimsRemoved).toEqual(["The old model cost $5."]);
    // As written to diff.json and served by the API: no backslash, no emphasis marker in claims
    // and titles (a source's title is kept as written: it is text, not Markdown).
    const { sectionsChanged, sections, claimsAdded, claimsRemoved } = diff;
    const json = JSON.stringify({ sectionsChanged, sections, claimsAdded, claimsRemoved });
    expect(json).not.toMatch(/\\\\|\*\*/);
    expect(json).toContain('"Clover Station Duo: ships in May [6]."');
  });

  it("compares claims on their readable text: a change of escapes or emphasis only is no claim change", () => {
    const diff = diffOf(BEFORE, "The **old** model cost \\$5 [2].");
    expect(diff.claimsAdded).toEqual([]);
    expect(diff.claimsRemoved).toEqual([]);
  });

  it("reads the report's escaped raw HTML back as the text it stands for", () => {
    const diff = diffOf(BEFORE, "The &lt;b>new&lt;/b> figure is 5 &amp; 6 [6].");
    expect(diff.claimsAdded).toEqual(["The <b>new</b> figure is 5 & 6."]);
    // The redline is Markdown again: the HTML is escaped there, and reads back as text in the UI.
    expect(renderRedline(diff, "T")).toContain("- **The &lt;b>new&lt;/b> figure is 5 & 6.**");
  });

  it("writes the redline with readable claims, escaping only what would be its own markup", () => {
    const diff = diffOf(BEFORE, "\\*\\*Clover Station Duo:\\*\\* 2 * 3 ~~ x \\[6\\] [6].");
    expect(diff.claimsAdded).toEqual(["Clover Station Duo: 2 * 3 ~~ x [6]."]);
    const redline = renderRedline(diff, "A **bold** title");
    expect(redline).toContain("# Changes in version 2: A bold title");
    expect(redline).toContain("## Models & prices (rewritten)");
    expect(redline).toContain("- **Clover Station Duo: 2 \\* 3 \\~\\~ x [6].**");
    expect(redline).toContain("- ~~The old model cost $5.~~");
    expect(redline).toContain("- [2] Old \\*\\*page\\*\\* <https://a.example/>");
    expect(redline).not.toContain("\\[6\\]");
  });
});
