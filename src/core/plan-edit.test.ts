import { describe, expect, it } from "vitest";
import { isDossierError } from "./errors.ts";
import { applyPlanEdit, parsePlanAnswer, parsePlanEdit } from "./plan-edit.ts";
import { type ReviewPlan, reviewPlanSchema } from "./review-plan.ts";

const subtasks: ReviewPlan = reviewPlanSchema.parse({
  strategy: "minddr",
  kind: "subtasks",
  title: "Heat pumps",
  items: [
    { id: "T-1", title: "Costs", description: "What they cost", extras: { queries: ["cost"], keep: 1 } },
    { id: "T-2", title: "Efficiency", extras: { queries: ["cop"] } },
    { id: "T-3", title: "Grid impact", extras: { queries: ["grid"] } },
  ],
  limits: { minItems: 1, maxItems: 4, maxChildren: 0, textExtras: ["queries"] },
});

const sections: ReviewPlan = reviewPlanSchema.parse({
  strategy: "graph",
  kind: "sections",
  items: [
    { id: "1", title: "Background", children: [{ id: "T-4", title: "Search background" }] },
    {
      id: "2",
      title: "Findings",
      children: [
        { id: "T-5", title: "Search findings" },
        { id: "T-6", title: "Cross-check" },
      ],
    },
  ],
  limits: { minItems: 1, maxItems: 5, maxChildren: 3, childKind: "subtask" },
});

function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected INPUT_INVALID");
}

describe("applyPlanEdit", () => {
  it("removes, adds, rewords and reorders items, saying what changed", () => {
    const { plan, changes } = applyPlanEdit(
      subtasks,
      parsePlanEdit({
        items: [
          { id: "T-3", title: "Grid impact in winter" },
          { id: "T-1", title: "Costs" },
          { title: "Noise", description: "How loud they are" },
        ],
      }),
    );
    expect(plan.items).toEqual([
      // Reworded: the extras derived from its text go, the others stay.
      { id: "T-3", title: "Grid impact in winter" },
      // A description left out keeps the proposed one.
      { id: "T-1", title: "Costs", description: "What they cost", extras: { queries: ["cost"], keep: 1 } },
      { id: "new-1", title: "Noise", description: "How loud they are" },
    ]);
    expect(changes).toEqual({
      added: ["new-1"],
      removed: ["T-2"],
      reworded: ["T-3"],
      reordered: true,
      retitled: false,
    });
    expect(plan.title).toBe("Heat pumps");
  });

  it("keeps a plan given back unchanged as it was, with no change", () => {
    const { plan, changes } = applyPlanEdit(subtasks, parsePlanEdit(subtasks));
    expect(plan).toEqual(subtasks);
    expect(changes).toEqual({ added: [], removed: [], reworded: [], reordered: false, retitled: false });
  });

  it("an empty description removes it; a new title retitles the plan", () => {
    const { plan, changes } = applyPlanEdit(
      subtasks,
      parsePlanEdit({
        title: "Heat pumps in cold climates",
        items: [
          { id: "T-1", title: "Costs", description: "" },
          { id: "T-2", title: "Efficiency" },
        ],
      }),
    );
    expect(plan.items[0]).toEqual({ id: "T-1", title: "Costs", extras: { keep: 1 } });
    expect(changes.reworded).toEqual(["T-1"]);
    expect(changes.removed).toEqual(["T-3"]);
    expect(changes.retitled).toBe(true);
    expect(plan.title).toBe("Heat pumps in cold climates");
  });

  it("moves a sub-item to another parent, keeps sub-items left out, and adds new ones", () => {
    const { plan, changes } = applyPlanEdit(
      sections,
      parsePlanEdit({
        items: [
          {
            id: "1",
            title: "Background",
            children: [{ id: "T-6", title: "Cross-check" }, { title: "History" }],
          },
          { id: "2", title: "Findings", children: [{ id: "T-5", title: "Search findings" }] },
        ],
      }),
    );
    expect(plan.items.map((i) => [i.id, (i.children ?? []).map((c) => c.id)])).toEqual([
      ["1", ["T-6", "new-1"]],
      ["2", ["T-5"]],
    ]);
    expect(changes).toEqual({
      added: ["new-1"],
      removed: ["T-4"],
      reworded: [],
      reordered: true,
      retitled: false,
    });
    // Sub-items left out are kept as proposed.
    const kept = applyPlanEdit(sections, parsePlanEdit({ items: [{ id: "2", title: "Findings" }] }));
    expect(kept.plan.items[0]!.children!.map((c) => c.id)).toEqual(["T-5", "T-6"]);
    expect(kept.changes.removed).toEqual(["1", "T-4"]);
    expect(kept.changes.reordered).toBe(false);
  });

  it("refuses what breaks the plan's limits or names ids it does not have, naming where", () => {
    expect(
      invalid(() =>
        applyPlanEdit(
          subtasks,
          parsePlanEdit({
            items: [{ title: "a" }, { title: "b" }, { title: "c" }, { title: "d" }, { title: "e" }],
          }),
        ),
      ),
    ).toMatch(/a minddr plan has 1 to 4 subtasks; this one has 5/);
    expect(
      invalid(() => applyPlanEdit(subtasks, parsePlanEdit({ items: [{ id: "T-9", title: "x" }] }))),
    ).toMatch(/items\.0\.id: the proposed plan has no item "T-9"/);
    expect(
      invalid(() =>
        applyPlanEdit(
          subtasks,
          parsePlanEdit({
            items: [
              { id: "T-1", title: "x" },
              { id: "T-1", title: "y" },
            ],
          }),
        ),
      ),
    ).toMatch(/items\.1\.id: "T-1" is listed twice/);
    expect(
      invalid(() =>
        applyPlanEdit(
          subtasks,
          parsePlanEdit({ items: [{ id: "T-1", title: "x", children: [{ title: "y" }] }] }),
        ),
      ),
    ).toMatch(/have no sub-items/);
    expect(
      invalid(() => applyPlanEdit(sections, parsePlanEdit({ items: [{ id: "T-4", title: "x" }] }))),
    ).toMatch(/"T-4" is a subtask, not one of the sections/);
    expect(
      invalid(() =>
        applyPlanEdit(
          sections,
          parsePlanEdit({ items: [{ id: "1", title: "x", children: [{ id: "2", title: "y" }] }] }),
        ),
      ),
    ).toMatch(/"2" is one of the sections, not a subtask/);
    // A sub-item kept with its parent and listed again elsewhere.
    expect(
      invalid(() =>
        applyPlanEdit(
          sections,
          parsePlanEdit({
            items: [
              { id: "1", title: "x", children: [{ id: "T-5", title: "y" }] },
              { id: "2", title: "z" },
            ],
          }),
        ),
      ),
    ).toMatch(/"T-5" is listed twice/);
  });

  it("checks the edited plan's shape before anything else, naming the field", () => {
    expect(invalid(() => parsePlanEdit({ items: [] }))).toMatch(/items: the plan has no items/);
    expect(invalid(() => parsePlanEdit({ items: [{ title: "  " }] }))).toMatch(
      /items\.0\.title: an item's title is empty/,
    );
    expect(invalid(() => parsePlanEdit({ items: [{ id: "bad id!", title: "x" }] }))).toMatch(/items\.0\.id/);
    expect(invalid(() => parsePlanAnswer({ action: "maybe" }))).toMatch(
      /the review answer is not valid: action/,
    );
    expect(invalid(() => parsePlanAnswer({ action: "edit" }))).toMatch(/plan/);
    expect(parsePlanAnswer({ action: "reject", reason: " too broad " })).toEqual({
      action: "reject",
      reason: "too broad",
    });
  });
});
