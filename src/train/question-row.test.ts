import { describe, expect, it } from "vitest";
import { preferenceRowSchema } from "./preference-row.ts";
import { questionRowSchema, rowRaceCriteria, rowRubricItems } from "./question-row.ts";

describe("question rows", () => {
  it("reads {id, prompt, answer?, entities?, reference?, rubric?}, a numeric id as a string, extra fields kept", () => {
    const row = questionRowSchema.parse({
      id: 7,
      prompt: "Who founded the museum?",
      answer: "Ada",
      entities: ["Ada", "Lovelace Hall"],
      difficulty: "hard",
    });
    expect(row).toEqual({
      id: "7",
      prompt: "Who founded the museum?",
      answer: "Ada",
      entities: ["Ada", "Lovelace Hall"],
      difficulty: "hard",
    });
  });

  it("refuses a row without a prompt, an empty entity and a malformed rubric", () => {
    expect(questionRowSchema.safeParse({ id: "a" }).success).toBe(false);
    expect(questionRowSchema.safeParse({ id: "a", prompt: "q", entities: [""] }).success).toBe(false);
    expect(questionRowSchema.safeParse({ id: "a", prompt: "q", rubric: [{ title: "t" }] }).success).toBe(
      false,
    );
  });

  it("tells a query-specific rubric from RACE criteria", () => {
    const items = [{ title: "Clear", description: "Key Criterion: clear", weight: 5 }];
    const withItems = questionRowSchema.parse({ id: "a", prompt: "q", rubric: items });
    expect(rowRubricItems(withItems)).toEqual(items);
    expect(rowRaceCriteria(withItems)).toBeNull();
    const criteria = {
      prompt: "q",
      dimension_weight: { comprehensiveness: 1 },
      criterions: { comprehensiveness: [{ criterion: "c", explanation: "e", weight: 1 }] },
    };
    const withRace = questionRowSchema.parse({ id: "a", prompt: "q", rubric: criteria });
    expect(rowRubricItems(withRace)).toBeNull();
    expect(rowRaceCriteria(withRace)?.dimension_weight).toEqual({ comprehensiveness: 1 });
  });

  it("reads preference rows {query, accepted, rejected}", () => {
    expect(preferenceRowSchema.parse({ query: "q", accepted: "a", rejected: "b" })).toEqual({
      query: "q",
      accepted: "a",
      rejected: "b",
    });
    expect(preferenceRowSchema.safeParse({ query: "q", accepted: "a" }).success).toBe(false);
  });
});
