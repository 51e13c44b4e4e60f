/**
 * graph's plan loop with its own options (iteration cap, inner rounds) and a planner that meets a
 * budget: a strategy registered under another name runs `runGraph` with them in the research world.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_GRAPH_CALLS,
  initPlanAnswer,
  ONE_CYCLE_GRAPH_CALLS,
  parsePlan,
  proposal,
  SEARCH_FAILING_GRAPH_CALLS,
} from "../../../test/research/graph-answers.ts";
import { dependencyOrderViolations } from "../../../test/research/plan-order.ts";
import { json, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { exceeded } from "../../core/budget.ts";
import type { DossierEvent } from "../../core/events.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { createStrategyRegistry } from "../registry.ts";
import type { StrategyDefinition, StrategyRunInput } from "../types.ts";
import { graphStrategy } from "./definition.ts";
import { type GraphOptions, runGraph } from "./run.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";

/** graph under the name `graph-test`, with `options` and a context `wrap` may change. */
function graphWith(
  options: Partial<GraphOptions>,
  wrap: (ctx: RunContext) => RunContext = (ctx) => ctx,
): StrategyDefinition<never> {
  return {
    ...graphStrategy,
    name: "graph-test",
    run: (ctx: RunContext, input: StrategyRunInput<unknown>) =>
      runGraph(wrap(ctx), { tools: input.tools, language: input.language, ...options }),
  } as unknown as StrategyDefinition<never>;
}

const research = (strategy: StrategyDefinition<never>) =>
  world!.research({ query, strategy: "graph-test" }, { strategies: createStrategyRegistry([strategy]) });

const seqOf = (events: DossierEvent[], pred: (e: DossierEvent) => boolean) => events.find(pred)?.seq ?? -1;
/** Search and llm nodes in the order they started. */
const started = (events: DossierEvent[]) =>
  events.flatMap((e) =>
    e.type === "node-start" && (e.nodeType === "search" || e.nodeType === "llm") ? [e.nodeId] : [],
  );

function expectReportAfterStop(events: DossierEvent[], references: number) {
  const stop = seqOf(events, (e) => e.type === "decision" && e.decision === "stop");
  const start = events.find((e) => e.type === "node-start" && e.nodeType === "report");
  expect(start?.seq).toBeGreaterThan(stop);
  const end = events.find((e) => e.type === "node-end" && e.nodeId === (start as { nodeId: string }).nodeId);
  expect(end).toMatchObject({ status: "done", summary: `${references} references` });
  expect(dependencyOrderViolations(events)).toEqual([]);
}

describe("graph's plan loop", () => {
  it("stops at its iteration cap and prunes what the report still waits for, saying why", async () => {
    world = await startResearchWorld({
      // The one cycle runs INITPLAN's two searches (no planner turn of its own); the cap then
      // comes before the second cycle's planner turn, and the cross-check (T-7) never runs.
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
      },
    });
    const result = await research(graphWith({ maxIterations: 1 }));
    expect(result.record).toMatchObject({ status: "completed", stopReason: "iteration-cap" });
    const events = result.events;
    expect(
      events.flatMap((e) => (e.type === "phase" && e.phase === "researching" ? [e.detail] : [])),
    ).toEqual(["iteration 1: 2 nodes"]);
    expect(
      events.some((e) => e.type === "phase" && e.phase === "planning" && e.detail !== "initial plan"),
    ).toBe(false);
    expect(events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "iteration-cap",
    });
    expect(events.filter((e) => e.type === "node-pruned")).toMatchObject([
      { nodeId: "T-7", by: "stop", reason: "not run: the planner's iteration cap was reached" },
    ]);
    const last = events.filter((e) => e.type === "plan-update").at(-1);
    expect(last).toMatchObject({ iteration: 0 });
    const t7 = (last as { graph: { nodes: { id: string; status: string }[] } }).graph.nodes.find(
      (n) => n.id === "T-7",
    );
    expect(t7?.status).toBe("pruned");
    expect(started(events)).not.toContain("T-7");
    expectReportAfterStop(events, result.outcome!.report.references.length);
  });

  it("stops at once when the planner meets a budget limit, and writes from what it has", async () => {
    let plannerCalls = 0;
    const wrap = (ctx: RunContext): RunContext => ({
      ...ctx,
      structured: (request) => {
        // The first planner call is INITPLAN, whose actions the first cycle runs; the loop's first
        // turn of its own (the second cycle's) meets the token limit.
        if (request.role === "planner" && ++plannerCalls === 2) return Promise.reject(exceeded("tokens"));
        return ctx.structured(request);
      },
    });
    world = await startResearchWorld({
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        // Only the survey and the first cycle (INITPLAN's two searches) run.
        "graph-planner": 0,
        critic: 1,
        consolidate: 0,
        "ephemeral-rubric": 1,
      },
    });
    const result = await research(graphWith({}, wrap));
    expect(result.record).toMatchObject({ status: "completed", stopReason: "budget:tokens" });
    const events = result.events;
    expect(events.filter((e) => e.type === "node-pruned")).toMatchObject([
      { nodeId: "T-7", by: "stop", reason: "not run: the tokens budget is spent" },
    ]);
    // Nothing is gated or run after the refused turn.
    const refused = seqOf(events, (e) => e.type === "phase" && e.detail === "iteration 2");
    expect(refused).toBeGreaterThan(0);
    expect(
      events.filter((e) => e.type === "phase" && (e.phase === "gating" || e.phase === "researching")),
    ).toMatchObject([{ detail: "2 actions" }, { detail: "iteration 1: 2 nodes" }]);
    expect(events.some((e) => e.type === "node-start" && e.seq > refused && e.nodeType !== "report")).toBe(
      false,
    );
    expectReportAfterStop(events, result.outcome!.report.references.length);
  });

  it("runs the planner's chosen actions only, and the whole frontier when none of them is ready", async () => {
    let planner = 0;
    world = await startResearchWorld({
      override: (role, body) => {
        const user = userText(body);
        // INITPLAN picks T-6 alone of its two searches: the first cycle runs it only.
        if (role === "init-plan") {
          const answer = JSON.parse((initPlanAnswer(user) as { text: string }).text) as object;
          return json({ ...answer, actions: ["T-6"] });
        }
        if (role !== "graph-planner") return undefined;
        planner += 1;
        if (planner > 1) return undefined;
        // The first planner turn (the second cycle) names only nodes that are not ready.
        return json({
          assessments: [],
          decision: { changePlan: false, reasons: [], explanation: "one at a time" },
          plan: parsePlan(user).map(proposal),
          actions: ["T-7", "T-99"],
          synthesize: false,
        });
      },
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "graph-planner": 3, critic: 3, "ephemeral-rubric": 3 },
    });
    const result = await research(graphWith({}));
    const events = result.events;
    const batches = events.flatMap((e) =>
      e.type === "phase" && e.phase === "researching" ? [e.detail] : [],
    );
    expect(batches).toEqual(["iteration 1: 1 nodes", "iteration 2: 1 nodes", "iteration 3: 1 nodes"]);
    const loopStarts = started(events).filter((id) => !["T-1", "T-2", "T-3"].includes(id));
    expect(loopStarts).toEqual(["T-6", "T-5", "T-7"]);
    expect(result.record.stopReason).toBe("planner-synthesize");
    expect(dependencyOrderViolations(events)).toEqual([]);
  });

  it("gives the loop's search agents the inner rounds it is given; the broad searches plan nothing", async () => {
    world = await startResearchWorld({
      // T-5 and T-6 plan one round each instead of two, and so read no page; the two broad
      // searches read one page each.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "inner-step": 2, reader: 2 },
    });
    const result = await research(graphWith({ innerRounds: 1 }));
    expect(result.record.stopReason).toBe("planner-synthesize");
    const prompts = world.script.prompts["inner-step"];
    expect(prompts.map((p) => /^Subtask (T-\d+):/m.exec(p)?.[1]).sort()).toEqual(["T-5", "T-6"]);
    for (const p of prompts) expect(p).toContain("Plan round 1 of at most 1.");
    // The broad searches are direct tool calls: in their scopes, no model call but the page readers.
    const inSurvey = (e: DossierEvent) => e.scope === "search:T-1" || e.scope === "search:T-2";
    const surveyCalls = result.events.filter((e) => e.type === "llm-start" && inSurvey(e));
    expect(surveyCalls.map((e) => e.type === "llm-start" && e.role)).toEqual(["reader", "reader"]);
    const surveyTools = result.events.flatMap((e) =>
      e.type === "tool-start" && inSurvey(e) ? [e.tool] : [],
    );
    expect(surveyTools.filter((t) => t === "web_search")).toHaveLength(2);
  });

  it("leaves an audit trail: phases, scopes, the outline node, and what each role is shown", async () => {
    world = await startResearchWorld({ expectCalls: DEFAULT_GRAPH_CALLS });
    const result = await research(graphWith({}));
    const events = result.events;
    const stop = seqOf(events, (e) => e.type === "decision" && e.decision === "stop");
    const phases = events.flatMap((e) =>
      e.type === "phase" && e.seq < stop ? [e.detail ? `${e.phase}: ${e.detail}` : e.phase] : [],
    );
    expect(phases).toEqual([
      "framing",
      "surveying: 2 broad searches",
      "outlining",
      // INITPLAN writes the persistent rubric and chooses the first actions: no planner turn of
      // the first cycle's own.
      "planning: initial plan",
      "gating: 2 actions",
      "researching: iteration 1: 2 nodes",
      "gap-check: iteration 1",
      "planning: iteration 2",
      "gating: 1 actions",
      // The llm node's evidence is chosen, not retrieved: its gaps are checked alongside the gate.
      "gap-check: iteration 2",
      "researching: iteration 2: 1 nodes",
      "planning: iteration 3",
    ]);
    // Every model call is tagged with the role's scope.
    const scopes = new Set(
      events.flatMap((e) => (e.type === "llm-start" && e.seq < stop ? [`${e.role}@${e.scope}`] : [])),
    );
    for (const tag of [
      "router@router",
      "writer@outline",
      "rubricer@rubric",
      "planner@planner",
      "critic@gate",
    ])
      expect(scopes).toContain(tag);
    expect([...scopes].filter((t) => t.endsWith("@undefined") || t.endsWith("@"))).toEqual([]);
    // The outline node runs between the survey and the plan, and its result says what it fixed.
    expect(events.filter((e) => e.type === "node-start" && e.nodeType === "outline")).toMatchObject([
      { nodeId: "T-3", title: "Outline" },
    ]);
    expect(events.find((e) => e.type === "node-end" && e.nodeId === "T-3")).toMatchObject({
      status: "done",
      summary: "4 sections",
    });
    expect(events.find((e) => e.type === "outline-update")).toMatchObject({
      reason: "fixed outline from the survey",
    });
    const planAfterOutline = events.find(
      (e) => e.type === "plan-update" && e.seq > seqOf(events, (x) => x.type === "outline-update"),
    ) as unknown as { graph: { nodes: { id: string; result?: unknown }[] } };
    expect(planAfterOutline.graph.nodes.find((n) => n.id === "T-3")?.result).toEqual({
      summary: "4 sections",
      evidenceIds: [],
    });
    // Inner agents and the critic see the question and the fixed outline's sections.
    const context = `Research question: ${query}\n`;
    const outlineLine = "Outline sections: 1 Background; 2 Findings; 3 Comparison; 4 Outlook";
    for (const prompt of [...world.script.prompts["inner-step"], ...world.script.prompts.critic])
      expect(prompt.slice(0, context.length)).toBe(context);
    for (const prompt of world.script.prompts.critic) expect(prompt).toContain(outlineLine);
    // INITPLAN is shown the fixed outline and what the broad searches found; the persistent
    // rubric it writes is what the inner agents work to.
    const [initPlan] = world.script.prompts["init-plan"];
    expect(initPlan).toContain("Fixed outline:");
    expect(initPlan).toContain(`Broad search "${query}"`);
    expect(events.find((e) => e.type === "rubric-update" && e.kind === "persistent")).toMatchObject({
      rubric: expect.stringContaining("PERSISTENT-Coverage"),
    });
    for (const prompt of world.script.prompts["inner-step"]) expect(prompt).toContain("PERSISTENT-Coverage");
    // The critic is shown the executed nodes only (done here), one per line, not the pending ones.
    const executed = world.script.prompts.critic[0]!.split("Executed nodes and their outcomes:\n")[1]!.split(
      "\n\n",
    )[0]!;
    expect(executed.split("\n").map((l) => l.split(" ")[0])).toEqual(["T-1", "T-2", "T-3"]);
    // The first gap check already counts the evidence of nodes whose summaries are still being written.
    const gaps = world.script.prompts["ephemeral-rubric"][0]!;
    expect(gaps).toContain("served by T-5");
    expect(gaps).toContain("served by T-6");
    // Nothing waited for the report: no prune and no plan update after the stop.
    expect(events.some((e) => e.type === "plan-update" && e.seq > stop)).toBe(false);
    expectReportAfterStop(events, result.outcome!.report.references.length);
  });

  it("shows search agents of a later batch the gaps the gap check found", async () => {
    world = await startResearchWorld({
      expandIterations: 2,
      // The first cycle runs INITPLAN's two searches; the next two planner turns each add two
      // searches (two rounds each, one page read), then the cross-checks run and the report follows.
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "graph-planner": 4,
        critic: 4,
        "inner-step": 4 + 2 * 2 * 2,
        reader: 8,
        "sub-report": 6,
        consolidate: 3,
        "ephemeral-rubric": 4,
      },
    });
    await research(graphWith({}));
    const late = world.script.prompts["inner-step"].filter((p) => /^Subtask T-1[0-9]:/m.test(p));
    expect(late.length).toBeGreaterThan(0);
    expect(late.some((p) => p.includes("EPHEMERAL-GAP"))).toBe(true);
  });

  it("shows the critic failed nodes among the executed ones", async () => {
    world = await startResearchWorld({
      searchFailsWith: 500,
      expectCalls: SEARCH_FAILING_GRAPH_CALLS,
    });
    const result = await research(graphWith({}));
    expect(result.record.status).toBe("failed");
    const executed = world.script.prompts.critic[0]!.split("Executed nodes and their outcomes:\n")[1]!.split(
      "\n\n",
    )[0]!;
    expect(executed).toContain("T-1 [search, depth 1, failed]");
    expect(executed).toContain("T-2 [search, depth 1, failed]");
  });

  it("counts only its own turns against the iteration limit: the last turn's agents finish their work", async () => {
    world = await startResearchWorld({
      // The one cycle is INITPLAN's: its two search agents plan both their rounds and read.
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
      },
    });
    const result = await world.research({ query, budget: { maxIterations: 1 } });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "budget:iterations" });
    expect(result.events.filter((e) => e.type === "node-pruned")).toMatchObject([
      { nodeId: "T-7", reason: "not run: the iterations budget is spent" },
    ]);
  });

  it("stops before a planner turn once a hard limit is reached", async () => {
    // The survey and the first cycle make exactly twelve tool calls (each broad search and each
    // of INITPLAN's two search agents: a search and a page read of two calls): the check before
    // the second cycle's planner turn finds none left.
    world = await startResearchWorld({
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
      },
    });
    const result = await world.research({ query, budget: { maxToolCalls: 12 } });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "budget:toolCalls" });
    expect(result.record.usage?.toolCalls).toBe(12);
    expect(result.events.some((e) => e.type === "phase" && e.detail === "iteration 1: 2 nodes")).toBe(true);
    expect(result.events.some((e) => e.type === "phase" && e.detail === "iteration 2")).toBe(false);
  });

  it("runs no cycle once the broad searches reached a hard limit", async () => {
    // The survey makes exactly six tool calls: the loop's first check finds none left.
    world = await startResearchWorld({
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "graph-planner": 0,
        critic: 0,
        consolidate: 0,
        "ephemeral-rubric": 0,
        "inner-step": 0,
        reader: 2,
        "sub-report": 0,
        // The broad searches' evidence serves three of the four sections (the scripted outline
        // hints none to the fourth, and the survey's listings are not findings): the fourth is
        // left without a model call.
        section: 3,
      },
    });
    const result = await world.research({ query, budget: { maxToolCalls: 6 } });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "budget:toolCalls" });
    expect(result.record.usage?.toolCalls).toBe(6);
    expect(result.events.some((e) => e.type === "phase" && e.phase === "gating")).toBe(false);
    expect(result.events.some((e) => e.type === "phase" && e.detail === "iteration 1")).toBe(false);
  });

  it("fails naming the budget when it ran out before any research", async () => {
    const none = Object.fromEntries(
      Object.keys(DEFAULT_GRAPH_CALLS).map((role) => [role, [0, 20] as const]),
    ) as Record<keyof typeof DEFAULT_GRAPH_CALLS, readonly [number, number]>;
    world = await startResearchWorld({ expectCalls: none });
    const result = await world.research({ query, budget: { maxToolCalls: 0 } });
    expect(result.record.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "BUDGET_EXCEEDED", details: { limit: "toolCalls" } });
  });

  it("never runs an outline node a planner adds, and asking for the report then stops the loop", async () => {
    let planner = 0;
    world = await startResearchWorld({
      override: (role, body) => {
        if (role !== "graph-planner") return undefined;
        planner += 1;
        const user = userText(body);
        const nodes = parsePlan(user).map(proposal);
        if (planner === 1) {
          const outline = {
            id: "T-8",
            type: "outline",
            title: "Re-outline",
            goal: "outline again",
            deps: [],
            depth: 1,
          };
          return json({
            assessments: [],
            decision: { changePlan: true, reasons: ["new-gap"], explanation: "another outline" },
            plan: [
              ...nodes.filter((n) => n.type !== "report"),
              outline,
              ...nodes.filter((n) => n.type === "report").map((n) => ({ ...n, deps: [...n.deps, "T-8"] })),
            ],
            // The pending work runs (an empty choice would end the loop).
            actions: parsePlan(user)
              .filter((n) => n.status === "pending" && (n.type === "search" || n.type === "llm"))
              .map((n) => n.id),
            synthesize: false,
          });
        }
        // Run the pending search and llm nodes, then ask for the report (the outline node still pending).
        const work = parsePlan(user).filter(
          (n) => n.status === "pending" && (n.type === "search" || n.type === "llm"),
        );
        return json({
          assessments: [],
          decision: { changePlan: false, reasons: [], explanation: "go on" },
          plan: nodes,
          actions: work.map((n) => n.id),
          synthesize: work.length === 0,
        });
      },
      expectCalls: DEFAULT_GRAPH_CALLS,
    });
    const result = await research(graphWith({}));
    const events = result.events;
    expect(started(events)).toEqual(["T-1", "T-2", "T-5", "T-6", "T-7"]);
    expect(events.some((e) => e.type === "node-start" && e.nodeId === "T-8")).toBe(false);
    expect(result.record.stopReason).toBe("planner-synthesize");
    expect(events.some((e) => e.type === "decision" && e.reason.startsWith("synthesis deferred"))).toBe(
      false,
    );
    expect(events.filter((e) => e.type === "node-pruned")).toMatchObject([
      { nodeId: "T-8", by: "stop", reason: "not run: the planner asked for the report" },
    ]);
    expectReportAfterStop(events, result.outcome!.report.references.length);
  });

  it("takes no gaps from a gap check that fails, and goes on", async () => {
    world = await startResearchWorld({
      override: (role) =>
        role === "ephemeral-rubric" ? { kind: "text", text: '{ "truncated": ' } : undefined,
      // Each gap check: the first answer and two repairs.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "ephemeral-rubric": 2 * 3 },
    });
    const result = await research(graphWith({}));
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    const codes = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    expect(codes).toEqual(["GAPS_FALLBACK", "GAPS_FALLBACK"]);
    expect(result.events.some((e) => e.type === "rubric-update" && e.kind === "ephemeral")).toBe(false);
  });
});
