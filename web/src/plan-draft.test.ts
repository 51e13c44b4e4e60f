import { describe, expect, it } from "vitest";
import type { ReviewPlan } from "./api.ts";
import {
  addRow,
  draftOf,
  draftProblems,
  editOf,
  editRow,
  extrasLines,
  isEdited,
  moveRow,
  removeRow,
  retitle,
  timeLeft,
} from "./plan-draft.ts";

const plan: ReviewPlan = {
  strategy: "minddr",
  kind: "subtasks",
  title: "Topic adoption",
  items: [
    {
      id: "T-1",
      title: "Aspect 1",
      description: "Find evidence about aspect 1",
      extras: { queries: ["a1"] },
    },
    { id: "T-2", title: "Aspect 2" },
    { id: "T-3", title: "Aspect 3", description: "Goal 3" },
  ],
  limits: { minItems: 1, maxItems: 4, maxChildren: 0 },
};

const sections: ReviewPlan = {
  strategy: "graph",
  kind: "sections",
  items: [
    { id: "1", title: "Background", children: [{ id: "T-1", title: "History" }] },
    { id: "2", title: "Costs", children: [] },
  ],
  limits: { minItems: 1, maxItems: 10, maxChildren: 2, childKind: "subtask" },
};

describe("plan draft", () => {
  it("sends an unedited draft as the plan shown, and reads as not edited", () => {
    const draft = draftOf(plan);
    expect(isEdited(draft, plan)).toBe(false);
    expect(editOf(draft, plan)).toEqual({
      title: "Topic adoption",
      items: [
        { id: "T-1", title: "Aspect 1" },
        { id: "T-2", title: "Aspect 2" },
        { id: "T-3", title: "Aspect 3" },
      ],
    });
  });

  it("removes, adds, rewords and reorders items into the edit the server takes", () => {
    let draft = removeRow(draftOf(plan), { item: 1 });
    draft = addRow(draft);
    draft = editRow(draft, { item: 2 }, { title: "  Aspect 7 costs ", description: "Costs of aspect 7" });
    draft = moveRow(draft, { item: 2 }, -1);
    draft = editRow(draft, { item: 0 }, { title: "Aspect one" });
    expect(isEdited(draft, plan)).toBe(true);
    expect(editOf(draft, plan).items).toEqual([
      { id: "T-1", title: "Aspect one" },
      { title: "Aspect 7 costs", description: "Costs of aspect 7" },
      { id: "T-3", title: "Aspect 3" },
    ]);
    // Moving past either end changes nothing.
    expect(moveRow(draft, { item: 0 }, -1)).toBe(draft);
    expect(moveRow(draft, { item: 2 }, 1)).toBe(draft);
    // A description cleared is sent empty (the server then drops it); one left alone is not sent.
    const cleared = editRow(draftOf(plan), { item: 2 }, { description: "" });
    expect(editOf(cleared, plan).items[2]).toEqual({ id: "T-3", title: "Aspect 3", description: "" });
  });

  it("keeps new rows apart by key, and edits sub-items under their item", () => {
    let draft = addRow(addRow(draftOf(sections)), 1);
    expect(draft.items.map((i) => i.key)).toEqual(["1", "2", "new-1"]);
    expect(draft.items[1]!.children.map((c) => c.key)).toEqual(["new-2"]);
    draft = editRow(draft, { item: 1, child: 0 }, { title: "Price per unit" });
    draft = editRow(draft, { item: 2 }, { title: "Outlook" });
    draft = removeRow(draft, { item: 0, child: 0 });
    expect(editOf(draft, sections)).toEqual({
      items: [
        { id: "1", title: "Background", children: [] },
        { id: "2", title: "Costs", children: [{ title: "Price per unit" }] },
        { title: "Outlook", children: [] },
      ],
    });
    // The title of a plan without one stays absent.
    expect(retitle(draft, "x").title).toBeNull();
  });

  it("names what keeps the draft from being sent", () => {
    expect(draftProblems(draftOf(plan), plan)).toEqual([]);
    let draft = addRow(addRow(draftOf(plan)));
    expect(draftProblems(draft, plan)).toEqual([
      "The plan may have at most 4 subtasks.",
      "Item 4 has no text.",
      "Item 5 has no text.",
    ]);
    draft = [0, 0, 0].reduce((d) => removeRow(d, { item: 0 }), draftOf(plan));
    expect(draftProblems(retitle(draft, " "), plan)).toEqual([
      "The plan needs at least 1 subtasks.",
      "The title is empty.",
    ]);
    const crowded = addRow(addRow(draftOf(sections), 0), 0);
    expect(draftProblems(crowded, sections)).toContain("Item 1 may have at most 2 subtasks.");
  });

  it("shows extras as text and the time left before the deadline", () => {
    expect(extrasLines({ queries: ["a", "b"], type: "search", none: null, deps: [{ id: 1 }] })).toEqual([
      "queries: a; b",
      "type: search",
      'deps: {"id":1}',
    ]);
    expect(extrasLines({ q: "x".repeat(300) }, 20)[0]).toHaveLength(20);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(timeLeft("2026-01-01T00:00:30Z", now)).toBe("in under a minute");
    expect(timeLeft("2026-01-01T03:20:00Z", now)).toBe("in 3 h 20 min");
    expect(timeLeft("2026-01-02T01:00:00Z", now)).toBe("in 1 d 1 h");
    expect(timeLeft("2025-12-31T00:00:00Z", now)).toBe("passed");
  });
});
