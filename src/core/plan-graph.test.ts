import { describe, expect, it } from "vitest";
import { DossierError } from "./errors.ts";
import {
  addNodes,
  applyProposedPlan,
  graphSummary,
  nextNodeId,
  type PlanGraph,
  type PlanNode,
  type PlanNodeProposal,
  type PlanNodeStatus,
  planGraphSchema,
  planNodeProposalSchema,
  pruneNodes,
  readyFrontier,
  rewireNode,
  setNodeStatus,
  updateNode,
} from "./plan-graph.ts";
import { assertLegal, checkLegality } from "./plan-graph-legality.ts";

function node(id: string, depth: number, deps: string[] = [], extra: Partial<PlanNode> = {}): PlanNode {
  return {
    id,
    type: "search",
    title: `title ${id}`,
    goal: `goal ${id}`,
    deps,
    depth,
    status: "pending",
    ...extra,
  };
}

function proposal(n: PlanNode): PlanNodeProposal {
  const { status: _status, result: _result, ...rest } = structuredClone(n);
  return rest;
}

function expectPlanError(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DossierError);
    expect((error as DossierError).code).toBe("PLAN_ILLEGAL");
    expect((error as DossierError).message).toMatch(pattern);
    return;
  }
  throw new Error("expected a PLAN_ILLEGAL error");
}

/** T-1, T-2 (depth 1) → T-3 (depth 2) → report T-4 (depth 3). */
const legal: PlanGraph = {
  nodes: [
    node("T-1", 1),
    node("T-2", 1),
    node("T-3", 2, ["T-1"], { type: "llm" }),
    node("T-4", 3, ["T-1", "T-2", "T-3"], { type: "report" }),
  ],
};

describe("checkLegality", () => {
  it("accepts a legal graph", () => {
    expect(checkLegality(legal)).toEqual([]);
    expect(() => assertLegal(legal)).not.toThrow();
  });

  it("detects a cycle", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 2, ["T-2"]),
        node("T-2", 1, ["T-1"]),
        node("T-3", 3, ["T-1", "T-2"], { type: "report" }),
      ],
    };
    expect(checkLegality(graph)).toEqual([
      {
        code: "DEP_DEPTH",
        nodeId: "T-2",
        message: "Node T-2 (depth 1) depends on T-1 (depth 2); a dependency must be shallower",
      },
      { code: "CYCLE", nodeId: "T-1", message: "Nodes T-1, T-2 depend on each other in a cycle" },
    ]);
  });

  it("detects a missing dep, a self dep and a pruned dep", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1, [], { status: "pruned" }),
        node("T-2", 2, ["T-9", "T-2", "T-1"]),
        node("T-3", 3, ["T-2"], { type: "report" }),
      ],
    };
    expect(checkLegality(graph)).toEqual([
      { code: "MISSING_DEP", nodeId: "T-2", message: "Node T-2 depends on T-9, which is not in the graph" },
      { code: "SELF_DEP", nodeId: "T-2", message: "Node T-2 depends on itself" },
      { code: "PRUNED_DEP", nodeId: "T-2", message: "Node T-2 depends on T-1, which is pruned" },
    ]);
  });

  it("detects duplicate and malformed ids", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-1", 1),
        node("T-0", 1),
        node("T-4", 2, ["T-1", "T-0"], { type: "report" }),
      ],
    };
    expect(checkLegality(graph).map((v) => [v.code, v.nodeId])).toEqual([
      ["DUPLICATE_ID", "T-1"],
      ["BAD_ID", "T-0"],
    ]);
  });

  it("requires exactly one live report node", () => {
    const second = { nodes: [...legal.nodes, node("T-5", 3, ["T-1", "T-2", "T-3"], { type: "report" })] };
    expect(checkLegality(second)).toEqual([
      {
        code: "REPORT_COUNT",
        nodeId: "T-5",
        message: "Node T-5 is a second live report node; the plan needs exactly one",
      },
    ]);
    const none = { nodes: legal.nodes.slice(0, 3) };
    expect(checkLegality(none)).toEqual([
      { code: "REPORT_COUNT", message: "The plan has no live report node; it needs exactly one" },
    ]);
    const prunedSecond = {
      nodes: [...legal.nodes, node("T-5", 3, [], { type: "report", status: "pruned" })],
    };
    expect(checkLegality(prunedSecond)).toEqual([]);
  });

  it("enforces the depth limit", () => {
    const deep: PlanGraph = {
      nodes: [node("T-1", 0), node("T-2", 6, ["T-1"], { type: "report" })],
    };
    expect(checkLegality(deep).map((v) => [v.code, v.nodeId])).toEqual([
      ["DEPTH_LIMIT", "T-1"],
      ["DEPTH_LIMIT", "T-2"],
    ]);
    expect(checkLegality(legal, { maxDepth: 2 })).toEqual([
      {
        code: "DEPTH_LIMIT",
        nodeId: "T-4",
        message: "Node T-4 has depth 3; depth must be an integer in 1..2",
      },
    ]);
    expect(
      checkLegality({ nodes: [node("T-1", 1.5), node("T-2", 2, ["T-1"], { type: "report" })] }),
    ).toHaveLength(1);
  });

  it("rejects a dependency on a same-depth node", () => {
    const graph: PlanGraph = {
      nodes: [node("T-1", 1), node("T-2", 1, ["T-1"]), node("T-3", 2, ["T-1", "T-2"], { type: "report" })],
    };
    expect(checkLegality(graph)).toEqual([
      {
        code: "DEP_DEPTH",
        nodeId: "T-2",
        message: "Node T-2 (depth 1) depends on T-1 (depth 1); a dependency must be shallower",
      },
    ]);
  });

  it("requires the report to depend directly on every live node", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 1, [], { status: "pruned" }),
        node("T-3", 2, ["T-1"]),
        node("T-4", 3, ["T-3"], { type: "report" }),
      ],
    };
    expect(checkLegality(graph)).toEqual([
      { code: "REPORT_DEPS", nodeId: "T-4", message: "Report node T-4 does not depend on live node T-1" },
    ]);
    try {
      assertLegal(graph);
      expect.unreachable();
    } catch (error) {
      expect((error as DossierError).code).toBe("PLAN_ILLEGAL");
      expect((error as DossierError).details).toEqual({ violations: checkLegality(graph) });
    }
  });
});

describe("readyFrontier", () => {
  it("orders by depth, then gain, then creation order", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 2, [], { gain: 0.9 }),
        node("T-2", 1),
        node("T-3", 1, [], { gain: 0.5 }),
        node("T-4", 1, [], { gain: 0.5 }),
        node("T-5", 1, [], { gain: 0.8 }),
        node("T-6", 2, [], { gain: 0.9 }),
        node("T-7", 2),
      ],
    };
    expect(readyFrontier(graph).map((n) => n.id)).toEqual(["T-5", "T-3", "T-4", "T-2", "T-1", "T-6", "T-7"]);
  });

  it("counts failed deps as settled and skips unsettled, running, done and pruned nodes", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1, [], { status: "done" }),
        node("T-2", 1, [], { status: "failed" }),
        node("T-3", 1, [], { status: "running" }),
        node("T-4", 1, [], { status: "pruned" }),
        node("T-5", 2, ["T-1", "T-2"]),
        node("T-6", 2, ["T-1", "T-3"]),
        node("T-7", 2, ["T-4"]),
        node("T-8", 2, ["T-99"]),
        node("T-9", 3, ["T-5"], { type: "report" }),
      ],
    };
    expect(readyFrontier(graph).map((n) => n.id)).toEqual(["T-5"]);
    const after = setNodeStatus(setNodeStatus(graph, "T-5", "running"), "T-5", "failed", { error: "x" });
    expect(readyFrontier(after).map((n) => n.id)).toEqual(["T-9"]);
  });
});

describe("re-plan operations", () => {
  const graph: PlanGraph = {
    nodes: [
      node("T-1", 1, [], { status: "done", result: { evidence: ["E1"] } }),
      node("T-2", 1),
      node("T-3", 2, ["T-1", "T-2"]),
      node("T-4", 3, ["T-1", "T-2", "T-3"], { type: "report" }),
    ],
  };

  it("adds new pending nodes and refuses existing ids", () => {
    const added = addNodes(graph, [{ ...proposal(node("T-5", 1)), gain: 0.4 }]);
    expect(added.nodes[4]).toEqual({ ...node("T-5", 1), gain: 0.4 });
    expect(graph.nodes).toHaveLength(4);
    expectPlanError(() => addNodes(graph, [proposal(node("T-1", 1))]), /T-1 already exists/);
    expectPlanError(
      () => addNodes(graph, [proposal(node("T-6", 1)), proposal(node("T-6", 1))]),
      /T-6 already/,
    );
  });

  it("prunes pending nodes and drops them from pending deps only", () => {
    const pruned = pruneNodes(graph, ["T-2"]);
    expect(pruned.nodes.map((n) => [n.id, n.status, n.deps])).toEqual([
      ["T-1", "done", []],
      ["T-2", "pruned", []],
      ["T-3", "pending", ["T-1"]],
      ["T-4", "pending", ["T-1", "T-3"]],
    ]);
    expect(pruned.nodes[0]).toBe(graph.nodes[0]);
    const running = { nodes: [...graph.nodes, node("T-5", 2, ["T-2"], { status: "running" })] };
    expect(pruneNodes(running, ["T-2"]).nodes[4]).toBe(running.nodes[4]);
    expect(pruneNodes(pruned, ["T-2"])).toBe(pruned);
    expectPlanError(() => pruneNodes(graph, ["T-1"]), /Cannot prune node T-1: it is done/);
    expectPlanError(() => pruneNodes(graph, ["T-7"]), /No plan node with id T-7/);
  });

  it("rewires and updates pending nodes only", () => {
    expect(rewireNode(graph, "T-3", ["T-2"]).nodes[2]!.deps).toEqual(["T-2"]);
    expect(updateNode(graph, "T-3", { title: "new", gain: 0.7 }).nodes[2]).toEqual(
      node("T-3", 2, ["T-1", "T-2"], { title: "new", gain: 0.7 }),
    );
    expectPlanError(() => rewireNode(graph, "T-1", []), /Cannot rewire node T-1: it is done/);
    expectPlanError(() => updateNode(graph, "T-1", { title: "x" }), /Cannot update node T-1: it is done/);
  });

  it("allows only legal status transitions", () => {
    const running = setNodeStatus(graph, "T-2", "running");
    expect(running.nodes[1]!.status).toBe("running");
    expect(setNodeStatus(running, "T-2", "done", { n: 1 }).nodes[1]).toEqual(
      node("T-2", 1, [], { status: "done", result: { n: 1 } }),
    );
    expect(setNodeStatus(graph, "T-2", "pruned").nodes[2]!.deps).toEqual(["T-1"]);
    expectPlanError(() => setNodeStatus(graph, "T-2", "done"), /from pending to done/);
    expectPlanError(() => setNodeStatus(graph, "T-1", "pending"), /from done to pending/);
    expectPlanError(() => setNodeStatus(running, "T-2", "pruned"), /from running to pruned/);
    expectPlanError(
      () => setNodeStatus(pruneNodes(graph, ["T-2"]), "T-2", "running"),
      /from pruned to running/,
    );
  });

  it("merges a proposed plan and reports the diff", () => {
    const proposals: PlanNodeProposal[] = [
      { ...proposal(graph.nodes[0]!), title: "changed" },
      { ...proposal(graph.nodes[2]!), deps: ["T-1"], goal: "sharper" },
      proposal(node("T-5", 2, ["T-1"], { gain: 0.3 })),
      proposal(node("T-6", 3, ["T-1", "T-3", "T-5"], { type: "report" })),
    ];
    const { graph: next, diff } = applyProposedPlan(graph, proposals);
    expect(diff).toEqual({
      added: ["T-5", "T-6"],
      pruned: ["T-2", "T-4"],
      rewired: ["T-3"],
      updated: ["T-3"],
      ignored: ["T-1"],
    });
    expect(next.nodes[0]).toBe(graph.nodes[0]);
    expect(next.nodes.map((n) => [n.id, n.status])).toEqual([
      ["T-1", "done"],
      ["T-2", "pruned"],
      ["T-3", "pending"],
      ["T-4", "pruned"],
      ["T-5", "pending"],
      ["T-6", "pending"],
    ]);
    expect(next.nodes[2]).toEqual(node("T-3", 2, ["T-1"], { goal: "sharper" }));
    expect(checkLegality(next)).toEqual([]);
  });

  it("lists repeated and revived ids so legality can flag them", () => {
    const pruned = pruneNodes(graph, ["T-2"]);
    const { graph: next, diff } = applyProposedPlan(pruned, [
      ...pruned.nodes.map(proposal),
      proposal(node("T-3", 1)),
    ]);
    expect(diff).toEqual({ added: ["T-3"], pruned: [], rewired: [], updated: [], ignored: ["T-2"] });
    expect(next.nodes).toHaveLength(5);
    expect(checkLegality(next).map((v) => v.code)).toContain("DUPLICATE_ID");
  });

  it("numbers new nodes and summarises statuses", () => {
    expect(nextNodeId({ nodes: [] })).toBe("T-1");
    expect(nextNodeId({ nodes: [node("T-3", 1), node("T-12", 1), node("X-40", 1)] })).toBe("T-13");
    expect(graphSummary(graph)).toEqual({ total: 4, pending: 3, running: 0, done: 1, failed: 0, pruned: 0 });
  });

  it("validates proposals and stored graphs with zod", () => {
    expect(planNodeProposalSchema.safeParse({ ...proposal(graph.nodes[1]!), gain: 1.5 }).success).toBe(false);
    expect(planNodeProposalSchema.safeParse({ ...proposal(graph.nodes[1]!), type: "web" }).success).toBe(
      false,
    );
    expect(planGraphSchema.parse(structuredClone(graph))).toEqual(graph);
  });
});

/** mulberry32: a small seeded PRNG so the property tests are reproducible. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const subset = <T>(rng: () => number, items: readonly T[], p = 0.5): T[] => items.filter(() => rng() < p);

/**
 * A legal random graph mixing every status, with a pending report node on top. In "loose" graphs the
 * statuses ignore the deps' progress (e.g. a done node depending on a pending one, as after a manual
 * status change): legality does not look at statuses, and the re-plan guarantees must still hold.
 */
function randomGraph(rng: () => number): PlanGraph {
  const nodes: PlanNode[] = [];
  const count = 4 + Math.floor(rng() * 10);
  const loose = rng() < 0.5;
  for (let i = 1; i <= count; i++) {
    const depth = 1 + Math.floor(rng() * 3);
    const deps = subset(
      rng,
      nodes.filter((n) => n.depth < depth).map((n) => n.id),
      0.4,
    );
    const depStatus = deps.map((d) => nodes.find((n) => n.id === d)!.status);
    let status: PlanNodeStatus;
    if (depStatus.includes("pruned")) status = "pruned";
    else if (loose || depStatus.every((s) => s === "done" || s === "failed")) {
      status = pick(rng, ["done", "done", "failed", "running", "pending", "pruned"] as const);
    } else status = pick(rng, ["pending", "pending", "pruned"] as const);
    const extra: Partial<PlanNode> = { status, type: pick(rng, ["search", "llm"] as const) };
    if (rng() < 0.7) extra.gain = Math.round(rng() * 100) / 100;
    if (rng() < 0.5) extra.sections = [String(1 + Math.floor(rng() * 4))];
    if (status === "done" || status === "failed")
      extra.result = { evidence: [`E${i}`], nested: { ok: rng() < 0.5 } };
    nodes.push(node(`T-${i}`, depth, deps, extra));
  }
  const live = nodes.filter((n) => n.status !== "pruned").map((n) => n.id);
  nodes.push(node(`T-${count + 1}`, 4, live, { type: "report" }));
  return { nodes };
}

/** Deep copies of the nodes that must never change: done, failed and running. */
function frozenNodes(graph: PlanGraph): Map<string, PlanNode> {
  return new Map(
    graph.nodes
      .filter((n) => n.status !== "pending" && n.status !== "pruned")
      .map((n) => [n.id, structuredClone(n)]),
  );
}

function expectFrozenKept(before: Map<string, PlanNode>, after: PlanGraph): void {
  for (const [id, expected] of before) {
    const matches = after.nodes.filter((n) => n.id === id && n.status === expected.status);
    expect(matches[0]).toEqual(expected);
  }
}

describe("re-plan operations never change done, failed or running nodes (seeded property tests)", () => {
  const seeds = Array.from({ length: 40 }, (_, i) => 1000 + i * 7919);

  it("generates legal graphs with done nodes", () => {
    let withDone = 0;
    for (const seed of seeds) {
      const graph = randomGraph(prng(seed));
      expect(checkLegality(graph)).toEqual([]);
      if (graph.nodes.some((n) => n.status === "done")) withDone += 1;
    }
    expect(withDone).toBeGreaterThan(30);
  });

  it.each(seeds)("seed %i: addNodes, pruneNodes, rewireNode, updateNode", (seed) => {
    const rng = prng(seed);
    const graph = randomGraph(rng);
    const input = structuredClone(graph);
    const frozen = frozenNodes(graph);
    const ids = graph.nodes.map((n) => n.id);
    const pending = graph.nodes.filter((n) => n.status === "pending").map((n) => n.id);

    const newId = nextNodeId(graph);
    const added = addNodes(graph, [proposal(node(newId, 2, subset(rng, ids)))]);
    expectFrozenKept(frozen, added);
    expect(added.nodes.slice(0, ids.length)).toEqual(graph.nodes);

    const pruned = pruneNodes(graph, subset(rng, pending));
    expectFrozenKept(frozen, pruned);

    let rewired = graph;
    let updated = graph;
    for (const id of pending) {
      rewired = rewireNode(rewired, id, subset(rng, ids));
      updated = updateNode(updated, id, { title: `t${rng()}`, goal: "g", gain: rng(), sections: ["9"] });
    }
    expectFrozenKept(frozen, rewired);
    expectFrozenKept(frozen, updated);

    for (const id of frozen.keys()) {
      expectPlanError(() => pruneNodes(graph, [id]), /Cannot prune/);
      expectPlanError(() => rewireNode(graph, id, []), /Cannot rewire/);
      expectPlanError(() => updateNode(graph, id, { title: "x" }), /Cannot update/);
      expectPlanError(() => addNodes(graph, [proposal(node(id, 1))]), /already exists/);
    }
    expect(graph).toEqual(input);
  });

  it.each(seeds)("seed %i: applyProposedPlan over several iterations", (seed) => {
    const rng = prng(seed);
    let graph = randomGraph(rng);
    for (let round = 0; round < 5; round++) {
      const input = structuredClone(graph);
      const frozen = frozenNodes(graph);
      const ids = graph.nodes.map((n) => n.id);
      const changedFrozen: string[] = [];
      const proposals: PlanNodeProposal[] = [];
      for (const n of graph.nodes) {
        const roll = rng();
        if (roll < 0.2) continue;
        const p = proposal(n);
        if (roll < 0.6) {
          p.title = `rev ${round}`;
          p.deps = subset(rng, ids);
          p.depth = 1 + Math.floor(rng() * 4);
          p.gain = rng();
          if (frozen.has(n.id)) changedFrozen.push(n.id);
        }
        proposals.push(p);
      }
      const fresh = nextNodeId(graph);
      proposals.push(proposal(node(fresh, 2, subset(rng, ids))));
      const { graph: next, diff } = applyProposedPlan(graph, proposals);
      expectFrozenKept(frozen, next);
      expect(graph).toEqual(input);
      expect(diff.added).toEqual([fresh]);
      for (const id of changedFrozen) expect(diff.ignored).toContain(id);
      expect(next.nodes.map((n) => n.id)).toEqual([...ids, fresh]);
      // Advance the run a little so later rounds see more done nodes.
      graph = next;
      for (const ready of readyFrontier(graph).slice(0, 2)) {
        graph = setNodeStatus(
          setNodeStatus(graph, ready.id, "running"),
          ready.id,
          rng() < 0.8 ? "done" : "failed",
          {
            round,
          },
        );
      }
    }
  });
});
