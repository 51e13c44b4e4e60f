/**
 * graph with a model that does the least its schemas allow — inner search agents that finish
 * without a query, a planner that plans nothing and asks for the report, a rubric with no gaps:
 * every search agent is asked once more, and when they insist the run fails with NO_RESEARCH
 * instead of ending `completed` with empty headings.
 */

import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS, parsePlan, proposal } from "../../../test/research/graph-answers.ts";
import { json } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { NO_CALL_YET } from "../../kit/research-done.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const noSearch = json({
  rubric: [
    { name: "relevance", guidance: "keep results about the subtask only" },
    { name: "specificity", guidance: "prefer figures and dates" },
    { name: "reliability", guidance: "prefer primary sources" },
  ],
  state: "nothing needed",
  goal: "nothing",
  queries: [],
  read: [],
  done: true,
});

describe("graph: no research, no completed run", () => {
  it("search agents that finish before their first call are asked once more; insisting fails the run with NO_RESEARCH", async () => {
    world = await startResearchWorld({
      override: (role, body) => {
        if (role === "inner-step") return noSearch;
        if (role === "ephemeral-rubric") return json({ gaps: [], noFurtherRetrieval: true });
        if (role === "graph-planner") {
          const user = body.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
          return json({
            assessments: [],
            decision: { changePlan: false, reasons: [], explanation: "nothing to change" },
            plan: parsePlan(user).map(proposal),
            actions: [],
            synthesize: true,
          });
        }
        return undefined;
      },
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(result.record.status).toBe("failed");
    expect(result.record.stopReason).toBe("error: NO_RESEARCH");
    expect(result.error?.code).toBe("NO_RESEARCH");
    expect(result.outcome).toBeNull();
    expect(result.record.usage?.toolCalls).toBe(0);
    expect(world.search.requests).toEqual([]);
    // Each inner agent was asked twice: the second time told that nothing was researched yet.
    const prompts = world.script.prompts["inner-step"];
    expect(prompts.length).toBeGreaterThanOrEqual(4);
    expect(prompts.length % 2).toBe(0);
    expect(prompts.filter((p) => p.includes(NO_CALL_YET))).toHaveLength(prompts.length / 2);
    const reasked = result.events.filter((e) => e.type === "warning" && e.code === "NO_CALL_YET");
    expect(reasked).toHaveLength(prompts.length / 2);
    expect(result.events.some((e) => e.type === "node-start" && e.nodeType === "report")).toBe(false);
  });

  it("evidence gathered but every section written empty: the run fails, naming what it gathered", async () => {
    // The frame is asked alongside the sections and answers; with no section written it is left out.
    world = await startResearchWorld({
      override: (role) => (role === "section" ? { kind: "text", text: "" } : undefined),
      expectCalls: DEFAULT_GRAPH_CALLS,
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(result.record.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "NO_RESEARCH",
      message: expect.stringMatching(/no report was written from the [1-9]\d* evidence item\(s\) gathered/),
    });
    expect(result.record.usage?.toolCalls).toBeGreaterThan(0);
  });
});
