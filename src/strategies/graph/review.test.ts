/**
 * The graph strategy with plan review: the run stops after the fixed outline and INITPLAN; an
 * edit that removes a section and a subtask and adds a subtask is exactly the outline written
 * and the plan run (kept nodes keep their ids, the new one is a search node for its section, no
 * node is added behind the user's back), and the router, outline and INITPLAN are replayed.
 */

import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import { eventsOf, reviewedRun } from "../../../test/research/plan-review.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import type { PlanGraph } from "../../core/plan-graph.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("graph plan review", () => {
  it("writes the edited outline and runs the edited first plan: a section and a subtask removed, a subtask added", async () => {
    // One section fewer to write; otherwise the default run's calls.
    world = await startResearchWorld({ expectCalls: { ...DEFAULT_GRAPH_CALLS, section: 3 } });
    const run = await reviewedRun(world, { query: "How is topic adoption changing?" }, (plan) => {
      const [background, findings, comparison] = plan.items;
      return {
        items: [
          background!,
          findings!,
          {
            ...comparison!,
            children: [{ title: "Comparison figures", description: "topic 9 comparison figures" }],
          },
        ],
      };
    });
    // As proposed: four sections; the two searches and the cross-check under the first section each serves.
    expect(run.plan.items.map((i) => [i.id, i.title, (i.children ?? []).map((c) => c.id)])).toEqual([
      ["1", "Background", ["T-5", "T-7"]],
      ["2", "Findings", []],
      ["3", "Comparison", ["T-6"]],
      ["4", "Outlook", []],
    ]);
    expect(run.result.status).toBe("completed");
    // The outline written is the edited one.
    const outline = eventsOf(run.after, "outline-update").find((e) => e.reason === "plan review")!;
    expect((outline.outline as { sections: { title: string }[] }).sections.map((s) => s.title)).toEqual([
      "Background",
      "Findings",
      "Comparison",
    ]);
    expect(eventsOf(run.after, "section-written").map((e) => e.title)).toEqual(
      expect.arrayContaining(["Background", "Findings", "Comparison"]),
    );
    expect(eventsOf(run.after, "section-written")).toHaveLength(3);
    // The plan is the edited one: T-6 gone, the cross-check depending on T-5 only, a new search for section 3.
    const reviewed = eventsOf(run.after, "plan-update").find(
      (e) => e.diff !== undefined && (e.diff as { added: string[] }).added.includes("T-8"),
    )!;
    const planNodes = (reviewed.graph as PlanGraph).nodes.filter(
      (n) => !["T-1", "T-2", "T-3", "T-4"].includes(n.id),
    );
    expect(
      planNodes.map((n) => ({ id: n.id, type: n.type, deps: n.deps, sections: n.sections, goal: n.goal })),
    ).toEqual([
      { id: "T-5", type: "search", deps: [], sections: ["1", "2"], goal: expect.any(String) },
      {
        id: "T-7",
        type: "llm",
        deps: ["T-5"],
        sections: ["1", "2", "3"],
        goal: "cross-check the figures the searches found",
      },
      { id: "T-8", type: "search", deps: [], sections: ["3"], goal: "topic 9 comparison figures" },
    ]);
    // Exactly those nodes ran after the review; the first cycle ran the two searches.
    const started = eventsOf(run.after, "node-start").map((e) => e.nodeId);
    expect(started.filter((id) => id >= "T-5").sort()).toEqual(["T-5", "T-7", "T-8"]);
    expect(started).not.toContain("T-6");
    const firstBatch = eventsOf(run.after, "phase").find((e) => e.phase === "researching")!;
    expect(firstBatch.detail).toBe("iteration 1: 2 nodes");
    expect(eventsOf(run.events, "plan-reviewed")[0]).toMatchObject({
      action: "edit",
      changes: { removed: ["T-6", "4"], added: ["new-1"], reworded: [] },
    });
  }, 90_000);
});
