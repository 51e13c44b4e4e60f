import { describe, expect, it } from "vitest";
import { normalizeWhitespace, VerbatimIndex, verifyExcerpts } from "./verbatim.ts";

describe("normalizeWhitespace", () => {
  it("collapses runs, trims, and maps each character back", () => {
    const n = normalizeWhitespace("  a \n\t b  c ");
    expect(n.text).toBe("a b c");
    expect([...n.origin]).toEqual([2, 3, 7, 8, 10]);
  });
});

describe("verbatim excerpts", () => {
  const page =
    "The pilot turbine delivered 1.2 gigawatt-hours\nto the grid.  Its output is   predictable.\n\n| 2024 | 1.2 |";

  it("finds an excerpt across different whitespace and returns the page's own text", () => {
    const index = new VerbatimIndex(page);
    expect(index.find("delivered 1.2 gigawatt-hours to the grid.")).toBe(
      "delivered 1.2 gigawatt-hours\nto the grid.",
    );
    expect(index.find("  Its output is predictable. ")).toBe("Its output is   predictable.");
  });

  it("accepts an excerpt wrapped in quotation marks", () => {
    expect(new VerbatimIndex(page).find("“Its output is predictable.”")).toBe("Its output is   predictable.");
  });

  it("rejects paraphrases, changed numbers, ellipses and empty excerpts", () => {
    const index = new VerbatimIndex(page);
    expect(index.find("The pilot turbine produced 1.2 gigawatt-hours")).toBeNull();
    expect(index.find("delivered 1.3 gigawatt-hours")).toBeNull();
    expect(index.find("The pilot turbine … to the grid.")).toBeNull();
    expect(index.find("   ")).toBeNull();
  });

  it("keeps verified excerpts once each and counts the dropped ones", () => {
    expect(
      verifyExcerpts(page, ["to the grid.", "made up sentence", "to  the grid.", "| 2024 | 1.2 |", ""]),
    ).toEqual({ kept: ["to the grid.", "| 2024 | 1.2 |"], dropped: 2 });
  });
});
