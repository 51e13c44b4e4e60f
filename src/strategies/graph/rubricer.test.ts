import { describe, expect, it } from "vitest";
import { ephemeralRubricSchema } from "./rubricer.ts";

const gap = (n: number) => ({
  type: "coverage-gap",
  sections: [String(n)],
  description: `section ${n} lacks figures`,
  action: "search for figures",
});

describe("ephemeral rubric schema", () => {
  it("requires 2–4 gaps unless no further retrieval is needed", () => {
    expect(ephemeralRubricSchema.safeParse({ gaps: [gap(1)], noFurtherRetrieval: false }).success).toBe(
      false,
    );
    expect(ephemeralRubricSchema.safeParse({ gaps: [], noFurtherRetrieval: false }).success).toBe(false);
    expect(
      ephemeralRubricSchema.safeParse({ gaps: [gap(1), gap(2)], noFurtherRetrieval: false }).success,
    ).toBe(true);
    expect(
      ephemeralRubricSchema.safeParse({ gaps: [1, 2, 3, 4].map(gap), noFurtherRetrieval: false }).success,
    ).toBe(true);
    expect(
      ephemeralRubricSchema.safeParse({ gaps: [1, 2, 3, 4, 5].map(gap), noFurtherRetrieval: false }).success,
    ).toBe(false);
    expect(ephemeralRubricSchema.safeParse({ gaps: [], noFurtherRetrieval: true }).success).toBe(true);
  });
});
