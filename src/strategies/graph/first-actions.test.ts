/**
 * INITPLAN writes the persistent rubric, the first plan and the first actions in one call; the
 * first cycle runs those actions without a planner turn of its own.
 */

import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS, persistentItems } from "../../../test/research/graph-answers.ts";
import { json } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import type { DossierEvent } from "../../core/events.ts";
import { FALLBACK_RUBRIC } from "./framing.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
const search = (id: string, sections: string[], deps: string[] = []) => ({
  id,
  type: deps.length ? "llm" : "search",
  title: `Node ${id}`,
  goal: `topic ${id} figures`,
  deps,
  depth: deps.length ? 3 : 2,
  sections,
});
/** INITPLAN's answer: ids that collide with the survey's, so they are renumbered. */
const initPlan = (actions: string[]) =>
  json({
    rubric: persistentItems(),
    rationale: "two searches and a check",
    nodes: [search("T-1", ["1", "2"]), search("T-2", ["3"]), search("T-3", ["1"], ["T-1", "T-2"])],
    actions,
  });
/** The nodes each critic call was asked about, in order. */
const gated = (world: ResearchWorld) =>
  world.script.prompts.critic.map((p) =>
    [...p.slice(p.indexOf("Planned actions:")).matchAll(/^(T-\d+) \[/gm)].map((m) => m[1]),
  );

describe("graph's first cycle", () => {
  it("runs INITPLAN's chosen actions, renumbered, with the nodes added for uncovered sections; no planner turn before", async () => {
    world = await startResearchWorld({
      override: (role) => (role === "init-plan" ? initPlan(["T-2", "T-404"]) : undefined),
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "graph-planner": 3,
        critic: 3,
        "inner-step": 6,
        reader: 5,
        "sub-report": 3,
        "ephemeral-rubric": 3,
      },
    });
    const result = await world.research({ query });
    expect(result.record.status).toBe("completed");
    // T-1 → T-5, T-2 → T-6, T-3 → T-7; section 4 uncovered → T-8. The first batch is the chosen
    // T-6 with the added T-8; T-5 waits for the planner, which runs it next.
    expect(gated(world)).toEqual([["T-6", "T-8"], ["T-5"], ["T-7"]]);
    const events = result.events;
    const firstCritic = events.findIndex((e) => e.type === "llm-start" && e.role === "critic");
    const before = events.slice(0, firstCritic);
    expect(before.some((e) => e.type === "llm-start" && e.role === "planner" && e.scope === "planner")).toBe(
      true,
    );
    expect(world.script.prompts["graph-planner"]).toHaveLength(3);
    expect(
      before
        .filter((e) => e.type === "phase" && e.phase === "planning")
        .map((e) => (e as { detail?: string }).detail),
    ).toEqual(["initial plan"]);
  });

  it("runs the whole ready frontier when INITPLAN chooses nothing that is ready", async () => {
    world = await startResearchWorld({
      override: (role) => (role === "init-plan" ? initPlan(["T-3"]) : undefined),
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "inner-step": 6,
        reader: 5,
        "sub-report": 3,
      },
    });
    const result = await world.research({ query });
    expect(result.record.status).toBe("completed");
    expect(gated(world)).toEqual([["T-5", "T-6", "T-8"], ["T-7"]]);
  });

  it("gives every role the rubric INITPLAN wrote, and the fixed rubric when INITPLAN fails", async () => {
    world = await startResearchWorld({ expectCalls: DEFAULT_GRAPH_CALLS });
    let result = await world.research({ query });
    const rubric = (events: DossierEvent[]) =>
      events.flatMap((e) => (e.type === "rubric-update" && e.kind === "persistent" ? [e.rubric] : []));
    expect(rubric(result.events)).toHaveLength(1);
    expect(rubric(result.events)[0]).toContain("PERSISTENT-Coverage");
    for (const prompt of [
      ...world.script.prompts["graph-planner"],
      ...world.script.prompts["inner-step"],
      ...world.script.systems.section,
    ])
      expect(prompt).toContain("PERSISTENT-Coverage");
    await world.close();

    world = await startResearchWorld({
      override: (role) => (role === "init-plan" ? { kind: "text", text: "{ not json" } : undefined),
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "init-plan": 3,
        "graph-planner": 1,
        critic: 1,
        "inner-step": 8,
        reader: 6,
        "sub-report": 4,
        "ephemeral-rubric": 1,
        consolidate: 0,
      },
    });
    result = await world.research({ query });
    expect(result.record.status).toBe("completed");
    const codes = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    expect(codes).toEqual(expect.arrayContaining(["RUBRIC_FALLBACK", "INITPLAN_FALLBACK"]));
    expect(rubric(result.events)).toEqual([FALLBACK_RUBRIC]);
    for (const prompt of world.script.prompts["inner-step"]) expect(prompt).toContain(FALLBACK_RUBRIC);
  });
});
