/**
 * mams with plan review: the run stops after the search agent's first plan, before any tool
 * runs; an edit that removes one step and adds one (with a sub-step) becomes the state's plan,
 * the first turn is asked again under exactly that plan, and the state agent reads it; the first
 * reply is replayed from the journal.
 */

import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, reviewedRun } from "../../../test/research/plan-review.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { planList, planSteps } from "./review.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const planBlock = (prompt: string) => /<plan>\n([\s\S]*?)\n<\/plan>/.exec(prompt)?.[1];

describe("mams plan review", () => {
  it("reads a Markdown plan as steps and writes steps back as one", () => {
    const steps = planSteps("- [x] survey\n  - [ ] Europe\n* open question\n1. [ ] last\nprose line");
    expect(steps).toEqual([
      {
        id: "P1",
        title: "survey",
        extras: { done: true },
        children: [{ id: "P1.1", title: "Europe", extras: { done: false } }],
      },
      { id: "P2", title: "open question" },
      { id: "P3", title: "last", extras: { done: false } },
    ]);
    expect(planList(steps)).toBe("- [x] survey\n  - [ ] Europe\n- [ ] open question\n- [ ] last");
  });

  it("asks the first turn again under exactly the edited plan: one step removed, one added", async () => {
    world = await startResearchWorld({
      expectCalls: { "mams-search": 3, "mams-state": 1, "mams-report": 1 },
    });
    const run = await reviewedRun(
      world,
      { query: "How did battery prices change and what followed?", strategy: "mams" },
      (plan) => ({
        items: [plan.items[0]!, { title: "compare prices by region", children: [{ title: "Europe" }] }],
      }),
    );
    expect(run.plan.items.map((i) => [i.id, i.title])).toEqual([
      ["P1", "survey the figures"],
      ["P2", "adoption across regions"],
    ]);
    // No tool ran before the review.
    expect(eventsOf(run.paused.events, "tool-start")).toEqual([]);
    expect(run.result.status).toBe("completed");
    const edited = "- [ ] survey the figures\n- [ ] compare prices by region\n  - [ ] Europe";
    // The first reply was replayed; the turn asked again saw the edited plan, and so did the state agent.
    const searches = world.script.prompts["mams-search"];
    expect(searches.map(planBlock)).toEqual(["(no plan yet)", edited, expect.any(String)]);
    expect(planBlock(world.script.prompts["mams-state"][0]!)).toBe(edited);
    expect(eventsOf(run.after, "tool-start").map((e) => (e.args as { query: string }).query)).toEqual([
      "topic 1 growth figures",
      "topic 6 adoption",
    ]);
    expect(eventsOf(run.events, "plan-reviewed")[0]).toMatchObject({
      action: "edit",
      changes: { removed: ["P2"], added: ["new-1", "new-2"], reworded: [] },
    });
  }, 60_000);
});
