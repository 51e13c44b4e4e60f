import { describe, expect, it } from "vitest";
import { citationIndex } from "./citations.ts";

describe("citation tooltips", () => {
  it("joins a number's excerpts, shortens long ones and links only http(s) sources", () => {
    const index = citationIndex(
      {
        references: [
          { number: 1, sourceId: "S1", title: "Web page", locator: "https://example.org/a" },
          { number: 2, sourceId: "S2", title: "Notes", locator: "notes/heat.md#cold" },
        ],
        evidenceByNumber: { "1": ["E1", "E2"], "2": ["E3"] },
        evidence: [
          { id: "E1", sourceId: "S1", text: "First." },
          { id: "E2", sourceId: "S1", text: "Second." },
          { id: "E3", sourceId: "S2", text: "x".repeat(50) },
        ],
      },
      20,
    );
    expect(index.get(1)).toEqual({
      title: "Web page",
      excerpt: "First. … Second.",
      url: "https://example.org/a",
      locator: "https://example.org/a",
    });
    expect(index.get(2)).toMatchObject({ url: null, excerpt: `${"x".repeat(20)}…` });
  });

  it("shows an excerpt as a reader sees it: no escaped Markdown, no emphasis markers", () => {
    const index = citationIndex({
      references: [{ number: 6, sourceId: "S1", title: "Clover", locator: "https://example.org/c" }],
      evidenceByNumber: { "6": ["E1", "E2"] },
      evidence: [
        { id: "E1", sourceId: "S1", text: "1\\. \\*\\*Clover Station Duo:\\*\\* ships in May \\[6\\]" },
        { id: "E2", sourceId: "S1", text: "**Clover Station Duo:** costs &lt;$5" },
      ],
    });
    expect(index.get(6)!.excerpt).toBe(
      "1. Clover Station Duo: ships in May [6] … Clover Station Duo: costs <$5",
    );
  });
});
