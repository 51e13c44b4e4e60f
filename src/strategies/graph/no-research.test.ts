/**
 * graph with a model that does the least its schemas allow — inner search agents that finish
 * without a query, a planner that plans nothing and asks for the report, a rubric with no gaps:
 * every search agent is asked once more, and when they insist their nodes fail. "No gaps" is not
 * taken while every plan node has failed; a run that ends with every plan node failed fails
 * (`NO_RESEARCH`, its report kept), and one whose broad searches found nothing either fails too,
 * instead of ending `completed` on nothing.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_GRAPH_CALLS,
  ONE_CYCLE_GRAPH_CALLS,
  parsePlan,
  proposal,
} from "../../../test/research/graph-answers.ts";
import type { ChatBody, ScriptRole } from "../../../test/research/model-script.ts";
import { json, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import type { DossierEvent } from "../../core/events.ts";
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

/** The least the model may answer: no search, no plan, the report at once, no gap. */
function leastEffort(role: ScriptRole, body: ChatBody) {
  if (role === "inner-step") return noSearch;
  if (role === "ephemeral-rubric") return json({ gaps: [], noFurtherRetrieval: true });
  if (role === "graph-planner")
    return json({
      assessments: [],
      decision: { changePlan: false, reasons: [], explanation: "nothing to change" },
      plan: parsePlan(userText(body)).map(proposal),
      actions: [],
      synthesize: true,
    });
  return undefined;
}

/** Each loop search agent (T-5, T-6) was asked twice: the second time told that nothing was researched yet. */
function expectAskedOnceMore(world: ResearchWorld, events: DossierEvent[]) {
  const prompts = world.script.prompts["inner-step"];
  expect(prompts.map((p) => /^Subtask (T-\d+):/m.exec(p)?.[1]).sort()).toEqual(["T-5", "T-5", "T-6", "T-6"]);
  expect(prompts.filter((p) => p.includes(NO_CALL_YET))).toHaveLength(2);
  const reasked = events.filter((e) => e.type === "warning" && e.code === "NO_CALL_YET");
  expect(reasked.map((e) => e.scope).sort()).toEqual(["search:T-5", "search:T-6"]);
  for (const id of ["T-5", "T-6"])
    expect(events.find((e) => e.type === "node-end" && e.nodeId === id)).toMatchObject({
      status: "failed",
      summary: expect.stringMatching(/^0 evidence/),
    });
}

const survey = new Set(["search:T-1", "search:T-2"]);

describe("graph: no research, no completed run", () => {
  it("search agents that finish before their first call are asked once more; insisting fails their nodes, and 'no gaps' is not accepted while every plan node has failed: the cross-check runs first", async () => {
    world = await startResearchWorld({
      override: leastEffort,
      // The rubric's first "no gaps" is not taken: the planner is asked, the cross-check (T-7)
      // the report depends on runs (gated), and the rubric is asked again.
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
        "graph-planner": 1,
        critic: 2,
        consolidate: 1,
        "ephemeral-rubric": 2,
        reader: 2,
        "sub-report": 0,
        section: 4,
      },
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expectAskedOnceMore(world, result.events);
    expect(
      result.events.some(
        (e) => e.type === "decision" && /no gaps, but every plan node failed: not accepted/.test(e.reason),
      ),
    ).toBe(true);
    expect(result.events.find((e) => e.type === "node-end" && e.nodeId === "T-7")).toMatchObject({
      status: "done",
    });
    // Once a plan node has done its work, "no gaps" ends the loop.
    expect(result.record).toMatchObject({ status: "completed", stopReason: "no-gaps" });
    expect(result.record.usage?.toolCalls).toBe(6);
    const tools = result.events.filter((e) => e.type === "tool-start");
    expect(tools.length).toBe(6);
    expect(tools.every((e) => survey.has(e.scope ?? ""))).toBe(true);
    expect(world.search.requests.map((r) => r.query.q)).toEqual(
      expect.arrayContaining(["How is topic adoption changing?", "topic 2 overview"]),
    );
    expect(world.search.requests).toHaveLength(2);
    // Every piece of evidence, and so every reference, comes from the broad searches.
    const added = result.events.filter((e) => e.type === "evidence-add");
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((e) => survey.has(e.scope ?? ""))).toBe(true);
    const report = result.outcome!.report;
    expect(report.references.length).toBeGreaterThan(0);
    const gathered = new Set(added.map((e) => (e.evidence as { sourceId: string }).sourceId));
    for (const r of report.references) expect(gathered.has(r.sourceId)).toBe(true);
  });

  it("when every plan node fails, the cross-check too, 'no gaps' is never taken and the run fails NO_RESEARCH, its report kept", async () => {
    world = await startResearchWorld({
      override: (role, body) =>
        role === "consolidate" ? { kind: "error", status: 400 } : leastEffort(role, body),
      // "No gaps" is refused twice: after the searches, and after the cross-check (deferred
      // synthesis runs it) failed too; the planner's next request for the report ends the loop.
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
        "graph-planner": 2,
        critic: 2,
        consolidate: [1, 3],
        "ephemeral-rubric": 2,
        reader: 2,
        "sub-report": 0,
        section: [0, 4],
        coherence: [0, 1],
      },
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expectAskedOnceMore(world, result.events);
    const refused = result.events.filter(
      (e) => e.type === "decision" && /no gaps, but every plan node failed: not accepted/.test(e.reason),
    );
    expect(refused).toHaveLength(2);
    for (const id of ["T-5", "T-6", "T-7"])
      expect(result.events.find((e) => e.type === "node-end" && e.nodeId === id)).toMatchObject({
        status: "failed",
      });
    const stop = result.events.find((e) => e.type === "decision" && e.decision === "stop");
    expect(stop).toMatchObject({ reason: "no-research: every plan node failed (planner-synthesize)" });
    // Not a completed run: the runtime fails it, naming why, and keeps what was written.
    expect(result.record.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "NO_RESEARCH",
      message: expect.stringContaining("every plan node failed"),
    });
    expect(result.outcome?.report.references.length).toBeGreaterThan(0);
  });

  it("and when the broad searches found nothing either, the run fails instead of completing", async () => {
    world = await startResearchWorld({
      override: leastEffort,
      searchFailsWith: 500,
      // "No gaps" is not taken while every plan node has failed: the planner is asked twice, the
      // cross-check gated and run, the rubric asked again.
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
        "graph-planner": 2,
        critic: 2,
        "ephemeral-rubric": 2,
        reader: 0,
        "sub-report": 0,
        section: 0,
        coherence: [0, 1],
      },
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expectAskedOnceMore(world, result.events);
    expect(result.record.status).toBe("failed");
    expect(result.error?.code).toBe("NO_EVIDENCE");
    expect(result.record.stopReason).toBe("error: NO_EVIDENCE");
    // What the strategy wrote cites nothing; the runtime fails the run for it (runtime/run-did-work.ts).
    expect(result.outcome?.report.references ?? []).toEqual([]);
    // The only tool calls were the broad searches, and both failed.
    expect(result.record.usage?.toolCalls).toBe(2);
    const ends = result.events.filter((e) => e.type === "tool-end");
    expect(ends.map((e) => e.type === "tool-end" && [e.scope, e.tool, e.ok]).sort()).toEqual([
      ["search:T-1", "web_search", false],
      ["search:T-2", "web_search", false],
    ]);
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
