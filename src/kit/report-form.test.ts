import { describe, expect, it } from "vitest";
import { normalizeReport, outlineOfReport } from "./report-form.ts";

describe("normalizeReport", () => {
  it("drops every references section the model wrote, in any language, and keeps what follows", () => {
    const { body } = normalizeReport(
      "## Findings\n\nText [E1].\n\n## 参考文献\n\n1. 某页\n\n## Outlook\n\nMore [E2].\n\n**Sources:**\n- E1",
      "q",
    );
    expect(body).toBe("## Findings\n\nText [E1].\n\n## Outlook\n\nMore [E2].");
  });

  it("keeps sections whose titles only start like a reference list", () => {
    const { body } = normalizeReport("## Sources of growth\n\nExports [E1].", "q");
    expect(body).toBe("## Sources of growth\n\nExports [E1].");
  });

  it("shifts headings but not lines of code, and writes setext headings as ATX", () => {
    const md =
      "# Title\n\nOverview\n========\n\nText.\n\n```sh\n# a shell comment\n```\n\n## Detail\n\nMore.";
    const { title, body } = normalizeReport(md, "q");
    expect(title).toBe("Title");
    expect(body).toBe("## Overview\n\nText.\n\n```sh\n# a shell comment\n```\n\n### Detail\n\nMore.");
  });

  it("takes no title from a first line that is not a level-1 heading", () => {
    expect(normalizeReport("```\n# code\n```\n\nText.", "question").title).toBe("question");
  });
});

describe("outlineOfReport", () => {
  it("names sections after the level-2 headings outside code", () => {
    const outline = outlineOfReport("## One\n\nx\n\n```\n## not a section\n```\n\n### Sub\n\n## Two", "T");
    expect(outline.sections.map((s) => s.title)).toEqual(["One", "Two"]);
  });
});
