import { describe, expect, it } from "vitest";
import { DossierError } from "./errors.ts";
import {
  createOutline,
  expandSection,
  findSection,
  flattenOutline,
  type Outline,
  outlineLeaves,
  outlineSchema,
  outlineSectionDraftSchema,
  outlineToText,
  renderOutlineMarkdown,
  sectionDepth,
  setSectionContent,
  validateOutline,
} from "./outline.ts";

const drafts = (n: number, prefix = "S") =>
  Array.from({ length: n }, (_, i) => ({ title: `${prefix}${i + 1}`, plan: `plan ${prefix}${i + 1}` }));

function expectOutlineError(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DossierError);
    expect((error as DossierError).code).toBe("OUTLINE_INVALID");
    expect((error as DossierError).message).toMatch(pattern);
    return;
  }
  throw new Error("expected an OUTLINE_INVALID error");
}

const ids = (outline: Outline) => flattenOutline(outline).map((s) => s.id);

describe("createOutline", () => {
  it("numbers level-1 sections 1..n and trims titles", () => {
    const outline = createOutline([
      { title: " Intro ", plan: "why" },
      { title: "Body", plan: "what" },
    ]);
    expect(outline).toEqual({
      sections: [
        { id: "1", title: "Intro", plan: "why", children: [] },
        { id: "2", title: "Body", plan: "what", children: [] },
      ],
    });
  });

  it("rejects empty titles and counts out of range", () => {
    expectOutlineError(() => createOutline([{ title: "  ", plan: "p" }]), /empty title/);
    expectOutlineError(() => createOutline([]), /1-12 sections, got 0/);
    expectOutlineError(() => createOutline(drafts(13)), /1-12 sections, got 13/);
    expectOutlineError(() => createOutline(drafts(2), { minSections: 3 }), /3-12 sections, got 2/);
    expect(createOutline(drafts(12)).sections).toHaveLength(12);
  });
});

describe("expandSection", () => {
  const base = createOutline(drafts(3));

  it("gives children position-derived ids", () => {
    const outline = expandSection(expandSection(base, "2", drafts(3, "C")), "2.3", drafts(2, "G"));
    expect(ids(outline)).toEqual(["1", "2", "2.1", "2.2", "2.3", "2.3.1", "2.3.2", "3"]);
    expect(findSection(outline, "2.3.2")).toEqual({
      id: "2.3.2",
      title: "G2",
      plan: "plan G2",
      children: [],
    });
    expect(flattenOutline(outline).map((s) => s.depth)).toEqual([1, 1, 2, 2, 2, 3, 3, 1]);
  });

  it("accepts 2 and 7 children, rejects 1 and 8", () => {
    expect(expandSection(base, "1", drafts(2)).sections[0]!.children).toHaveLength(2);
    expect(expandSection(base, "1", drafts(7)).sections[0]!.children.map((c) => c.id)).toEqual([
      "1.1",
      "1.2",
      "1.3",
      "1.4",
      "1.5",
      "1.6",
      "1.7",
    ]);
    expectOutlineError(() => expandSection(base, "1", drafts(1)), /2-7 children, got 1/);
    expectOutlineError(() => expandSection(base, "1", drafts(8)), /2-7 children, got 8/);
  });

  it("cannot expand a depth-3 section", () => {
    const deep = expandSection(expandSection(base, "1", drafts(2)), "1.1", drafts(2));
    expect(sectionDepth("1.1.2")).toBe(3);
    expectOutlineError(() => expandSection(deep, "1.1.2", drafts(2)), /depth 3; outlines are at most 3 deep/);
  });

  it("rejects unknown ids, already-expanded sections and empty child titles", () => {
    expectOutlineError(() => expandSection(base, "9", drafts(2)), /No section with id 9/);
    const once = expandSection(base, "1", drafts(2));
    expectOutlineError(() => expandSection(once, "1", drafts(2)), /already has children/);
    expectOutlineError(
      () => expandSection(base, "1", [...drafts(1), { title: "", plan: "" }]),
      /empty title/,
    );
  });

  it("keeps the section's content as an intro and does not mutate the input", () => {
    const written = setSectionContent(base, "2", "Intro text.");
    const snapshot = structuredClone(written);
    const expanded = expandSection(written, "2", drafts(2, "C"));
    expect(findSection(expanded, "2")?.content).toBe("Intro text.");
    expect(written).toEqual(snapshot);
    expect(expanded.sections[0]).toBe(written.sections[0]);
  });
});

describe("setSectionContent", () => {
  it("writes leaves only", () => {
    const outline = expandSection(createOutline(drafts(2)), "1", drafts(2, "C"));
    const written = setSectionContent(outline, "1.2", "Body.");
    expect(findSection(written, "1.2")?.content).toBe("Body.");
    expect(findSection(outline, "1.2")?.content).toBeUndefined();
    expectOutlineError(() => setSectionContent(outline, "1", "x"), /only leaves take content/);
    expectOutlineError(() => setSectionContent(outline, "3", "x"), /No section with id 3/);
  });
});

describe("queries", () => {
  const outline = expandSection(createOutline(drafts(2)), "1", drafts(2, "C"));

  it("lists leaves in document order", () => {
    expect(outlineLeaves(outline).map((s) => s.id)).toEqual(["1.1", "1.2", "2"]);
  });

  it("computes depth from ids", () => {
    expect([sectionDepth("1"), sectionDepth("3.2"), sectionDepth("1.2.3")]).toEqual([1, 2, 3]);
    expectOutlineError(() => sectionDepth("1..2"), /Malformed/);
    expectOutlineError(() => sectionDepth("0"), /Malformed/);
  });

  it("finds nothing for unknown ids", () => {
    expect(findSection(outline, "1.3")).toBeUndefined();
  });
});

describe("rendering", () => {
  const outline = setSectionContent(
    setSectionContent(expandSection(createOutline(drafts(2)), "1", drafts(2, "C")), "1.1", "First."),
    "2",
    "Second.\n",
  );

  it("renders headings by depth with content", () => {
    expect(renderOutlineMarkdown(outline)).toBe("## S1\n\n### C1\n\nFirst.\n\n### C2\n\n## S2\n\nSecond.\n");
  });

  it("honours baseLevel, includePlans and includeContent", () => {
    expect(renderOutlineMarkdown(outline, { baseLevel: 1, includePlans: true, includeContent: false })).toBe(
      "# S1\n\n> Plan: plan S1\n\n## C1\n\n> Plan: plan C1\n\n## C2\n\n> Plan: plan C2\n\n# S2\n\n> Plan: plan S2\n",
    );
    expect(renderOutlineMarkdown({ sections: [] })).toBe("");
  });

  it("lists the outline compactly for prompts", () => {
    expect(outlineToText(outline)).toBe(
      "1 S1 — plan S1\n  1.1 C1 — plan C1\n  1.2 C2 — plan C2\n2 S2 — plan S2",
    );
  });
});

describe("validateOutline and schemas", () => {
  it("accepts outlines built by the operations", () => {
    const outline = expandSection(expandSection(createOutline(drafts(3)), "3", drafts(7)), "3.7", drafts(2));
    expect(validateOutline(outline)).toEqual([]);
    expect(outlineSchema.parse(structuredClone(outline))).toEqual(outline);
  });

  it("reports wrong ids, depth, child counts and empty titles", () => {
    const leaf = (id: string, title = "t") => ({ id, title, plan: "", children: [] });
    const outline: Outline = {
      sections: [
        { ...leaf("1"), children: [leaf("1.1")] },
        { ...leaf("3", " "), children: [] },
        {
          ...leaf("3"),
          children: [
            {
              ...leaf("3.1"),
              children: [{ ...leaf("3.1.1"), children: [leaf("3.1.1.1"), leaf("3.1.1.2")] }, leaf("3.1.2")],
            },
            { ...leaf("3.2"), children: Array.from({ length: 8 }, (_, i) => leaf(`3.2.${i + 1}`)) },
          ],
        },
      ],
    };
    expect(validateOutline(outline)).toEqual([
      { sectionId: "1", message: "Has 1 children; a section has none or 2-7" },
      { sectionId: "3", message: 'Id "3" should be "2" at its position' },
      { sectionId: "3", message: "Empty title" },
      { sectionId: "3.1.1.1", message: "Depth 4 exceeds the maximum of 3" },
      { sectionId: "3.1.1.2", message: "Depth 4 exceeds the maximum of 3" },
      { sectionId: "3.2", message: "Has 8 children; a section has none or 2-7" },
    ]);
  });

  it("parses model drafts and rejects empty titles", () => {
    expect(outlineSectionDraftSchema.parse({ title: " A ", plan: "p" })).toEqual({ title: "A", plan: "p" });
    expect(outlineSectionDraftSchema.safeParse({ title: "  ", plan: "p" }).success).toBe(false);
    expect(
      outlineSchema.safeParse({ sections: [{ id: "1", title: "a", plan: "", children: [{}] }] }).success,
    ).toBe(false);
  });
});
