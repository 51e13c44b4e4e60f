/**
 * graph's plan loop with its own options (iteration cap, inner rounds) and a planner that meets a
 * budget: a strategy registered under another name runs `runGraph` with them in the research world.
 */

import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS, parsePlan, proposal } from "../../../test/research/graph-answers.ts";
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
      // One planner turn runs the two searches; the cross-check (T-7) never runs.
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "graph-planner": 1,
        critic: 1,
        consolidate: 0,
        "ephemeral-rubric": 1,
      },
    });
    const result = await research(graphWith({ maxIterations: 1 }));
    expect(result.record).toMatchObject({ status: "completed", stopReason: "iteration-cap" });
    const events = result.events;
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
        // The first planner call is INITPLAN; the loop's first turn meets the token limit.
        if (request.role === "planner" && ++plannerCalls === 2) return Promise.reject(exceeded("tokens"));
        return ctx.structured(request);
      },
    });
    world = await startResearchWorld({
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "graph-planner": 0,
        critic: 0,
        consolidate: 0,
        "ephemeral-rubric": 0,
        // Only the two survey nodes run.
        "inner-step": 4,
        reader: 2,
        "sub-report": 2,
      },
    });
    const result = await research(graphWith({}, wrap));
    expect(result.record).toMatchObject({ status: "completed", stopReason: "budget:tokens" });
    const events = result.events;
    expect(
      events.filter((e) => e.type === "node-pruned").map((e) => e.type === "node-pruned" && e.reason),
    ).toEqual([
      "not run: the tokens budget is spent",
      "not run: the tokens budget is spent",
      "not run: the tokens budget is spent",
    ]);
    expect(events.some((e) => e.type === "phase" && e.phase === "gating")).toBe(false);
    expectReportAfterStop(events, result.outcome!.report.references.length);
  });

  it("runs the planner's chosen actions only, and the whole frontier when none of them is ready", async () => {
    let planner = 0;
    world = await startResearchWorld({
      override: (role, body) => {
        if (role !== "graph-planner") return undefined;
        planner += 1;
        if (planner > 2) return undefined;
        const user = userText(body);
        return json({
          assessments: [],
          decision: { changePlan: false, reasons: [], explanation: "one at a time" },
          plan: parsePlan(user).map(proposal),
          // Turn 1 picks T-6 alone; turn 2 names only nodes that are not ready.
          actions: planner === 1 ? ["T-6"] : ["T-7", "T-99"],
          synthesize: false,
        });
      },
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "graph-planner": 4, critic: 3, "ephemeral-rubric": 3 },
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

  it("gives the loop's search agents the inner rounds it is given (the survey keeps two)", async () => {
    world = await startResearchWorld({
      // T-5 and T-6 plan one round each instead of two, and so read no page.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "inner-step": 6, reader: 2 },
    });
    const result = await research(graphWith({ innerRounds: 1 }));
    expect(result.record.stopReason).toBe("planner-synthesize");
  });
});
