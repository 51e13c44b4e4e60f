import { describe, expect, it } from "vitest";
import type { EventInput } from "../../core/events.ts";
import type { PlanGraph, PlanNode } from "../../core/plan-graph.ts";
import {
  pendingReport,
  pruneWithReason,
  recordPlannerPrunes,
  reportReady,
  stopPruneReason,
  waitingForReport,
} from "./readiness.ts";

function node(id: string, depth: number, deps: string[] = [], extra: Partial<PlanNode> = {}): PlanNode {
  return { id, type: "search", title: id, goal: id, deps, depth, status: "pending", ...extra };
}
const report = (id: string, depth: number, deps: string[], extra: Partial<PlanNode> = {}) =>
  node(id, depth, deps, { type: "report", ...extra });

function recorder() {
  const events: EventInput[] = [];
  const emit = (e: EventInput) => {
    events.push(e);
    return e as never;
  };
  return { events, ctx: { emit } };
}

describe("pendingReport and reportReady", () => {
  it("finds the pending report node only", () => {
    expect(pendingReport({ nodes: [node("T-1", 1), report("T-2", 2, ["T-1"], { status: "done" })] })).toBe(
      undefined,
    );
    const graph: PlanGraph = {
      nodes: [report("T-1", 2, [], { status: "pruned" }), node("T-2", 1), report("T-3", 2, ["T-2"])],
    };
    expect(pendingReport(graph)?.id).toBe("T-3");
  });

  it("is ready when every dependency settled, not while one is pending or running", () => {
    const graph = (status: PlanNode["status"]): PlanGraph => ({
      nodes: [
        node("T-1", 1, [], { status: "done" }),
        node("T-2", 1, [], { status }),
        report("T-3", 2, ["T-1", "T-2"]),
      ],
    });
    expect(reportReady(graph("pending"))).toBe(false);
    expect(reportReady(graph("running"))).toBe(false);
    expect(reportReady(graph("failed"))).toBe(true);
    expect(reportReady(graph("done"))).toBe(true);
    // Another node ready in the frontier does not make the report ready.
    expect(reportReady({ nodes: [node("T-1", 1), node("T-2", 1), report("T-3", 2, ["T-2"])] })).toBe(false);
    expect(reportReady({ nodes: [node("T-1", 1, [], { status: "done" })] })).toBe(false);
    expect(reportReady({ nodes: [node("T-1", 1)] })).toBe(false);
  });
});

describe("waitingForReport", () => {
  it("lists the pending nodes the report depends on, directly or through others, in graph order", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 1, [], { status: "done" }),
        node("T-3", 2, ["T-1", "T-2"], { status: "done" }),
        node("T-4", 3, ["T-3"]),
        node("T-5", 1),
        node("T-6", 2, ["T-9"]),
        report("T-7", 4, ["T-4", "T-6", "T-4"]),
      ],
    };
    expect(waitingForReport(graph).map((n) => n.id)).toEqual(["T-1", "T-4", "T-6"]);
  });

  it("ends its walk on dependencies that form a cycle", () => {
    const cyclic: PlanGraph = {
      nodes: [node("T-1", 1, ["T-2"]), node("T-2", 1, ["T-1"]), report("T-3", 2, ["T-1"])],
    };
    expect(waitingForReport(cyclic).map((n) => n.id)).toEqual(["T-1", "T-2"]);
  });

  it("follows shared dependencies once (a diamond) and is empty without a pending report", () => {
    const diamond: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 2, ["T-1"]),
        node("T-3", 2, ["T-1"]),
        report("T-4", 3, ["T-2", "T-3"]),
      ],
    };
    expect(waitingForReport(diamond).map((n) => n.id)).toEqual(["T-1", "T-2", "T-3"]);
    expect(
      waitingForReport({ nodes: [node("T-1", 1), report("T-2", 2, ["T-1"], { status: "running" })] }),
    ).toEqual([]);
    expect(waitingForReport({ nodes: [node("T-1", 1), report("T-2", 2, [])] })).toEqual([]);
  });
});

describe("pruneWithReason", () => {
  it("prunes pending nodes with the reason as result and an event, leaving others as they are", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 1, [], { status: "done" }),
        node("T-3", 2, ["T-1"]),
        report("T-4", 3, ["T-1", "T-2", "T-3"]),
      ],
    };
    const { ctx, events } = recorder();
    const next = pruneWithReason(ctx, graph, ["T-2", "T-3", "T-9", "T-1"], "not run: x", "stop");
    expect(next.nodes.map((n) => [n.id, n.status])).toEqual([
      ["T-1", "pruned"],
      ["T-2", "done"],
      ["T-3", "pruned"],
      ["T-4", "pending"],
    ]);
    expect(next.nodes[0]!.result).toEqual({ summary: "not run: x", evidenceIds: [], prunedBy: "stop" });
    expect(next.nodes[1]).toBe(graph.nodes[1]);
    expect(events).toEqual([
      { type: "node-pruned", nodeId: "T-3", reason: "not run: x", by: "stop" },
      { type: "node-pruned", nodeId: "T-1", reason: "not run: x", by: "stop" },
    ]);
    // A node pruned earlier in the same call is not pruned twice.
    const again = recorder();
    pruneWithReason(again.ctx, graph, ["T-1", "T-1"], "r", "planner");
    expect(again.events).toEqual([{ type: "node-pruned", nodeId: "T-1", reason: "r", by: "planner" }]);
  });
});

describe("recordPlannerPrunes", () => {
  it("gives pruned nodes without a result the planner's reason and announces each", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1, [], { status: "pruned" }),
        node("T-2", 1, [], { status: "pruned", result: { summary: "earlier" } }),
        node("T-3", 1),
        node("T-4", 1, [], { status: "pruned" }),
      ],
    };
    const { ctx, events } = recorder();
    const next = recordPlannerPrunes(ctx, graph, ["T-1", "T-2", "T-3"], "pruned by the planner");
    expect(next.nodes[0]!.result).toEqual({
      summary: "pruned by the planner",
      evidenceIds: [],
      prunedBy: "planner",
    });
    expect(next.nodes[1]).toBe(graph.nodes[1]);
    expect(next.nodes[2]).toBe(graph.nodes[2]);
    expect(next.nodes[3]).toBe(graph.nodes[3]);
    expect(events.map((e) => (e.type === "node-pruned" ? [e.nodeId, e.reason, e.by] : []))).toEqual([
      ["T-1", "pruned by the planner", "planner"],
      ["T-2", "pruned by the planner", "planner"],
      ["T-3", "pruned by the planner", "planner"],
    ]);
  });

  it("returns the same graph and announces nothing when nothing was pruned", () => {
    const graph: PlanGraph = { nodes: [node("T-1", 1, [], { status: "pruned" })] };
    const { ctx, events } = recorder();
    expect(recordPlannerPrunes(ctx, graph, [], "r")).toBe(graph);
    expect(events).toEqual([]);
  });
});

describe("stopPruneReason", () => {
  it.each([
    ["budget:tokens", "not run: the tokens budget is spent"],
    ["budget:wallTime", "not run: the wallTime budget is spent"],
    ["iteration-cap", "not run: the planner's iteration cap was reached"],
    ["no-gaps", "not run: the ephemeral rubric found no remaining gap"],
    ["frontier-empty", "not run: it can never become ready (a dependency was pruned)"],
    ["planner-synthesize", "not run: the planner asked for the report"],
    ["exploration", "not run: research stopped (exploration)"],
    ["over-budget:x", "not run: research stopped (over-budget:x)"],
  ])("explains %s", (stop, reason) => {
    expect(stopPruneReason(stop)).toBe(reason);
  });
});
