import { describe, expect, it } from "vitest";
import { applyPlanEdit } from "../core/plan-edit.ts";
import { type ReviewPlan, reviewPlanSchema } from "../core/review-plan.ts";
import { editChangesNothing, editOfLines, oneLine, planLines, planListing } from "./plan-text.ts";

const subtasks: ReviewPlan = reviewPlanSchema.parse({
  strategy: "minddr",
  kind: "subtasks",
  title: "Topic adoption",
  items: [
    { id: "T-1", title: "Aspect 1", description: "Goal 1", extras: { queries: ["a1", "a1 b"] } },
    { id: "T-2", title: "Aspect\n2 \u001b[31mred\u001b[0m" },
    { id: "T-3", title: "Aspect 3" },
  ],
  limits: { minItems: 1, maxItems: 8, maxChildren: 0, textExtras: ["queries"] },
});

const sections: ReviewPlan = reviewPlanSchema.parse({
  strategy: "graph",
  kind: "sections",
  items: [
    { id: "1", title: "Background", children: [{ id: "T-1", title: "History" }] },
    {
      id: "2",
      title: "Costs",
      children: [
        { id: "T-2", title: "Prices" },
        { id: "T-3", title: "Subsidies" },
      ],
    },
  ],
  limits: { minItems: 1, maxItems: 10, maxChildren: 3, childKind: "subtask" },
});

describe("a plan as lines", () => {
  it("shows each item on one line with its id, control characters and line breaks gone", () => {
    expect(oneLine(" a\n b\t\u001b[2Jc\u0007 ")).toBe("a b c");
    expect(planLines(subtasks)).toBe("[T-1] Aspect 1\n[T-2] Aspect 2 red\n[T-3] Aspect 3");
    expect(planLines(sections)).toBe(
      "[1] Background\n  - [T-1] History\n[2] Costs\n  - [T-2] Prices\n  - [T-3] Subsidies",
    );
    expect(planListing(subtasks)).toBe(
      "1. [T-1] Aspect 1\n   Goal 1\n   (queries: a1; a1 b)\n2. [T-2] Aspect 2 red\n3. [T-3] Aspect 3",
    );
  });

  it("reads the lines unchanged as the plan, keeping text one line cannot show", () => {
    const edit = editOfLines(planLines(subtasks), subtasks);
    expect(edit.items.map((i) => i.title)).toEqual(subtasks.items.map((i) => i.title));
    expect(editChangesNothing(edit, subtasks)).toBe(true);
    expect(editChangesNothing(editOfLines(planLines(sections), sections), sections)).toBe(true);
  });

  it("reads removed, added, reworded and reordered lines as the edit the engine applies", () => {
    const text = "1. [T-3] Aspect 3\n\n- [T-1] Aspect one\n  Aspect 7 costs\n";
    const edit = editOfLines(text, subtasks);
    expect(edit).toEqual({
      title: "Topic adoption",
      items: [
        { id: "T-3", title: "Aspect 3" },
        { id: "T-1", title: "Aspect one" },
        { title: "Aspect 7 costs" },
      ],
    });
    expect(editChangesNothing(edit, subtasks)).toBe(false);
    const { plan, changes } = applyPlanEdit(subtasks, edit);
    expect(plan.items.map((i) => i.title)).toEqual(["Aspect 3", "Aspect one", "Aspect 7 costs"]);
    expect(changes).toMatchObject({ added: ["new-1"], removed: ["T-2"], reworded: ["T-1"], reordered: true });
    // The kept item's description stays; the reworded one's text-derived queries go.
    expect(plan.items[1]).toMatchObject({ id: "T-1", description: "Goal 1" });
    expect(plan.items[1]!.extras?.queries).toBeUndefined();
  });

  it("reads indented lines as sub-items of the item above", () => {
    const text = "[2] Costs\n  - [T-3] Subsidies\n  - Price per unit\n[1] Background\nOutlook\n  - Forecasts";
    const edit = editOfLines(text, sections);
    expect(edit.items).toEqual([
      { id: "2", title: "Costs", children: [{ id: "T-3", title: "Subsidies" }, { title: "Price per unit" }] },
      { id: "1", title: "Background", children: [] },
      { title: "Outlook", children: [{ title: "Forecasts" }] },
    ]);
    const { changes } = applyPlanEdit(sections, edit);
    expect(changes).toMatchObject({ removed: ["T-1", "T-2"], reordered: true });
    expect(changes.added).toHaveLength(3);
  });
});
