import { describe, expect, it } from "vitest";
import { applyRevisions, citedEvidenceIds, restrictCitations } from "./coherence-revisions.ts";
import type { WrittenSection } from "./section-writer.ts";

const section = (sectionId: string, content: string, fallback = false): WrittenSection => ({
  sectionId,
  title: `Section ${sectionId}`,
  content,
  allowed: new Set(citedEvidenceIds(content)),
  fallback,
});

const draft = [
  section("1", "Costs fell by half [E1].\n\nSupply grew [E2, E3].\n\nSo adoption rose [E2]."),
  section("2", "Durability remains open [E4].\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
  section("3", "- a list item [E5]", true),
];

describe("applyRevisions", () => {
  it("replaces an opening or closing paragraph that keeps its citations", () => {
    const result = applyRevisions(draft, [
      { sectionId: "1", part: "opening", text: "Against this background, costs fell by half [E1]." },
      { sectionId: "1", part: "closing", text: "Cheaper, more plentiful supply lifted adoption [E2, E3]." },
    ]);
    expect(result.rejected).toEqual([]);
    expect(result.applied).toHaveLength(2);
    expect(result.sections[0]!.content).toBe(
      "Against this background, costs fell by half [E1].\n\nSupply grew [E2, E3].\n\nCheaper, more plentiful supply lifted adoption [E2, E3].",
    );
    expect(result.sections[0]!.allowed).toBe(draft[0]!.allowed);
    expect(result.sections[1]).toBe(draft[1]);
  });

  it.each([
    [
      { sectionId: "1", part: "opening", text: "Costs fell by half, as analysts note [E1, E4]." },
      /E4.*does not cite/,
    ],
    [
      { sectionId: "1", part: "opening", text: "Costs fell by half, a turning point for the market." },
      /drops.*E1/,
    ],
    [
      { sectionId: "2", part: "closing", text: "A short paragraph instead of the table [E4]." },
      /prose paragraph/,
    ],
    [{ sectionId: "3", part: "opening", text: "A smoother list item paragraph [E5]." }, /no written text/],
    [{ sectionId: "9", part: "opening", text: "A paragraph for a missing section." }, /no such section/],
    [
      { sectionId: "1", part: "opening", text: "Two paragraphs [E1].\n\nInstead of one [E1]." },
      /prose paragraph/,
    ],
  ] as const)("rejects a revision that would break the draft (%#)", (revision, reason) => {
    const result = applyRevisions(draft, [revision]);
    expect(result.applied).toEqual([]);
    expect(result.rejected[0]!.reason).toMatch(reason);
    expect(result.sections).toEqual(draft);
  });

  it("applies only the first revision of a paragraph", () => {
    const result = applyRevisions(draft, [
      { sectionId: "2", part: "opening", text: "Yet durability remains open [E4]." },
      { sectionId: "2", part: "opening", text: "However, durability remains open [E4]." },
    ]);
    expect(result.sections[1]!.content.startsWith("Yet durability")).toBe(true);
    expect(result.rejected).toMatchObject([{ reason: "revised twice" }]);
  });
});

describe("restrictCitations", () => {
  it("keeps only allowed ids and drops emptied groups", () => {
    const allowed = new Set(["E1", "E3"]);
    expect(restrictCitations("A [E1, E2]. B [E2]. C [e3].", allowed)).toBe("A [E1]. B. C [e3].");
    expect(citedEvidenceIds("x [E2] y [E1, e2]")).toEqual(["E2", "E1"]);
  });
});
