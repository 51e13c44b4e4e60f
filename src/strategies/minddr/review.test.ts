/**
 * minddr with plan review: the run stops after the Planning agent's subtasks; an edit that
 * removes one subtask and adds one is exactly what the DeepSearch agents then run (one agent per
 * item of the edited plan, in its order, each told its item's title and goal), and the planner's
 * answer is replayed from the journal, not asked again.
 */

import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, reviewedRun } from "../../../test/research/plan-review.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const subtaskOf = (prompt: string) => /Your subtask: (.*) — (.*)/.exec(prompt)?.slice(1, 3).join(" — ");

describe("minddr plan review", () => {
  it("runs exactly the edited subtasks: one removed, one added", async () => {
    world = await startResearchWorld({
      subtasks: 3,
      expectCalls: {
        planner: 1,
        "search-step": 3,
        reader: 3,
        "sub-report": 3,
        outline: 1,
        section: 4,
        coherence: 1,
      },
    });
    const run = await reviewedRun(
      world,
      { query: "How is topic adoption changing?", strategy: "minddr" },
      (plan) => ({
        items: [
          plan.items[0]!,
          plan.items[2]!,
          { title: "Aspect 7 costs", description: "Find evidence about the costs of aspect 7" },
        ],
      }),
    );
    expect(run.plan.items.map((i) => i.title)).toEqual(["Aspect 1", "Aspect 2", "Aspect 3"]);
    expect(run.result.status).toBe("completed");
    const executed = ["Aspect 1", "Aspect 3", "Aspect 7 costs"];
    expect(run.approved.items.map((i) => i.title)).toEqual(executed);
    // One search node per item of the edited plan, in its order; nothing else searched.
    const searches = eventsOf(run.after, "node-start").filter((e) => e.nodeType === "search");
    expect(searches.map((e) => e.title)).toEqual(executed);
    expect(eventsOf(run.after, "task-framed")[0]!.spec).toMatchObject({
      subtasks: [{ title: "Aspect 1" }, { title: "Aspect 3" }, { title: "Aspect 7 costs" }],
    });
    // Each agent was told its own item: title and goal as the plan shows them.
    expect(world.script.prompts["search-step"].map(subtaskOf).sort()).toEqual(
      [
        "Aspect 1 — Find evidence about aspect 1 of the question",
        "Aspect 3 — Find evidence about aspect 3 of the question",
        "Aspect 7 costs — Find evidence about the costs of aspect 7",
      ].sort(),
    );
    // The added subtask's seed search is its title; the removed one's never ran.
    const queries = eventsOf(run.after, "tool-start").map((e) => (e.args as { query?: string }).query);
    expect(queries).toContain("Aspect 7 costs");
    expect(queries).not.toContain("aspect 2 evidence");
    expect(eventsOf(run.events, "plan-reviewed")[0]).toMatchObject({
      action: "edit",
      changes: { removed: ["T-2"], added: ["new-1"], reworded: [] },
    });
  }, 60_000);
});
