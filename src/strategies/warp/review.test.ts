/**
 * warp with plan review: the run stops after INITIALIZE's outline; an edit that removes one
 * section and adds one is exactly the outline then searched and written, section by section in
 * its order (the policy then deepens it as usual), and INITIALIZE is replayed, not asked again.
 */

import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, reviewedRun } from "../../../test/research/plan-review.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("warp plan review", () => {
  it("searches and writes exactly the edited level-1 outline: one section removed, one added", async () => {
    world = await startResearchWorld({
      expectCalls: {
        "warp-search": 1 + 3 + 2,
        "warp-init": 1,
        "warp-write": 3 + 2,
        "warp-deepen": 2,
        reader: 5,
      },
    });
    const run = await reviewedRun(
      world,
      { query: "How did battery costs and adoption change?", strategy: "warp" },
      (plan) => ({
        title: "Batteries since 2020",
        items: [
          plan.items[2]!,
          plan.items[0]!,
          { title: "Recycling and reuse", description: "What happens to spent batteries" },
        ],
      }),
    );
    expect(run.plan.items.map((i) => i.title)).toEqual([
      "Costs and prices",
      "Supply and chemistry",
      "Storage and grid",
    ]);
    expect(run.result.status).toBe("completed");
    const executed = ["Storage and grid", "Costs and prices", "Recycling and reuse"];
    expect(run.approved.items.map((i) => i.title)).toEqual(executed);
    // The outline after the review is the edited plan; its sections are drafted in its order.
    const outline = eventsOf(run.after, "outline-update").find((e) => e.reason === "plan review")!;
    expect((outline.outline as { sections: { title: string; plan: string }[] }).sections).toMatchObject([
      { title: "Storage and grid", plan: "Explain storage and grid with the evidence" },
      { title: "Costs and prices", plan: "Explain costs and prices with the evidence" },
      { title: "Recycling and reuse", plan: "What happens to spent batteries" },
    ]);
    const written = eventsOf(run.after, "section-written");
    expect(written.slice(0, 3).map((e) => [e.sectionId, e.title])).toEqual([
      ["1", "Storage and grid"],
      ["2", "Costs and prices"],
      ["3", "Recycling and reuse"],
    ]);
    // The removed section was never searched for; the report has the plan's title.
    expect(world.script.prompts["warp-search"].some((p) => p.includes('"Supply and chemistry"'))).toBe(false);
    expect(run.result.report?.title ?? run.result.markdown).toMatch(/Batteries since 2020/);
    expect(eventsOf(run.events, "plan-reviewed")[0]).toMatchObject({
      action: "edit",
      changes: { removed: ["2"], added: ["new-1"], reworded: [], reordered: true, retitled: true },
    });
  }, 60_000);
});
