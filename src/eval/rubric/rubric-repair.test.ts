import { describe, expect, it } from "vitest";
import { repairRubricItems, rubricProblems } from "./rubric-repair.ts";
import type { RawRubricItem } from "./rubric-types.ts";

const item = (title: string, description: string, weight: number, category?: string): RawRubricItem => ({
  title,
  description,
  weight,
  ...(category ? { category } : {}),
});

const seven: RawRubricItem[] = [
  item("Clear conclusion", "Key Criterion: States a clear conclusion backed by evidence.", 5),
  item("Market size", "Key Criterion: Gives the current market size with a source.", 5),
  item("Explained reasoning", "Important Criterion: Explains the reasoning behind key points.", 4),
  item("Logical structure", "Important Criterion: Organises content in clear sections.", 3),
  item("Concise", "Optional Criterion: Avoids redundancy.", 1),
  item("Tables", "Optional Criterion: Uses tables for figures.", 2),
  item("Outdated data", "Error Criterion: Relies on figures older than five years.", -2),
];

describe("repairRubricItems", () => {
  it("accepts a valid rubric unchanged", () => {
    const result = repairRubricItems(seven);
    expect(result.problems).toEqual([]);
    expect(result.repairs).toEqual([]);
    expect(result.items.map((i) => [i.category, i.weight])).toEqual([
      ["key", 5],
      ["key", 5],
      ["important", 4],
      ["important", 3],
      ["optional", 1],
      ["optional", 2],
      ["error", -2],
    ]);
  });

  it("derives categories from prefix or weight, clamps weights and fixes prefixes", () => {
    const result = repairRubricItems([
      item("Key facts", "Key Criterion: Covers the core facts.", 4), // key → weight 5
      item("Penalty", "Error Criterion: Cites no sources.", 2), // error with positive weight → -2
      item("Depth", "Discusses mechanisms in depth.", 3.6), // no prefix → important by weight, 4
      item("Style", "important criterion: Fluent prose.", 1, "optional"), // explicit category wins
      item("Huge", "Optional Criterion: Extra depth.", 9), // optional → 2
      item("Missing", "Error criteria: Omits risks.", -7), // → -2
      item("", "Key Criterion: Names the key players and their market shares.", 5), // title from description
    ]);
    expect(result.problems).toEqual([]);
    expect(result.items.map((i) => [i.title, i.category, i.weight, i.description])).toEqual([
      ["Key facts", "key", 5, "Key Criterion: Covers the core facts."],
      ["Penalty", "error", -2, "Error Criterion: Cites no sources."],
      ["Depth", "important", 4, "Important Criterion: Discusses mechanisms in depth."],
      ["Style", "optional", 1, "Optional Criterion: Fluent prose."],
      ["Huge", "optional", 2, "Optional Criterion: Extra depth."],
      ["Missing", "error", -2, "Error Criterion: Omits risks."],
      [
        "Names the key players and their",
        "key",
        5,
        "Key Criterion: Names the key players and their market shares.",
      ],
    ]);
    expect(result.repairs).toContain('item 1 ("Key facts"): weight 4 → 5 (key)');
    expect(result.repairs).toContain(
      'item 4 ("Style"): category "optional" kept over the prefix "important"',
    );
  });

  it("drops duplicates and reports an unrepairable count", () => {
    const result = repairRubricItems([...seven.slice(0, 6), { ...seven[0]! }]);
    expect(result.items).toHaveLength(6);
    expect(result.repairs).toEqual(['item 7 ("Clear conclusion"): dropped as a duplicate title']);
    expect(result.problems).toEqual(["a rubric has 7-20 items, this one has 6"]);
  });

  it("trims a rubric over 20 items, optional items first, keeping order", () => {
    const many = [
      ...seven,
      ...Array.from({ length: 15 }, (_, i) => item(`Extra ${i + 1}`, "Optional Criterion: Extra.", 1)),
    ];
    const result = repairRubricItems(many);
    expect(result.items).toHaveLength(20);
    expect(result.items.slice(0, 7).map((i) => i.title)).toEqual(seven.map((i) => i.title));
    expect(result.items.at(-1)!.title).toBe("Extra 13");
    expect(result.problems).toEqual([]);
  });

  it("flags a rubric with only error items", () => {
    const errors = Array.from({ length: 7 }, (_, i) => item(`E${i}`, "Error Criterion: x.", -1));
    expect(rubricProblems(repairRubricItems(errors).items)).toEqual([
      "a rubric needs at least one positive item",
    ]);
  });
});
