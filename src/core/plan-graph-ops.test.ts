import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DossierError } from "./errors.ts";
import {
  addNodes,
  applyProposedPlan,
  graphSummary,
  nextNodeId,
  PLAN_NODE_ID_PATTERN,
  PLAN_NODE_STATUSES,
  PLAN_NODE_TYPES,
  type PlanGraph,
  type PlanNode,
  type PlanNodeProposal,
  type PlanNodeStatus,
  planGraphSchema,
  planNodeProposalSchema,
  planNodeSchema,
  pruneNodes,
  readyFrontier,
  rewireNode,
  setNodeStatus,
  updateNode,
} from "./plan-graph.ts";

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

function planError(fn: () => unknown): DossierError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DossierError);
    expect((error as DossierError).code).toBe("PLAN_ILLEGAL");
    return error as DossierError;
  }
  throw new Error("expected PLAN_ILLEGAL");
}

const ids = (nodes: readonly PlanNode[]) => nodes.map((n) => n.id);

describe("plan node schemas", () => {
  it("lists the node types and statuses", () => {
    expect(PLAN_NODE_TYPES).toEqual(["search", "llm", "outline", "report"]);
    expect(PLAN_NODE_STATUSES).toEqual(["pending", "running", "done", "failed", "pruned"]);
    for (const type of PLAN_NODE_TYPES) {
      expect(planNodeProposalSchema.safeParse(proposal(node("T-1", 1, [], { type }))).success).toBe(true);
    }
    for (const status of PLAN_NODE_STATUSES) {
      expect(planNodeSchema.safeParse(node("T-1", 1, [], { status })).success).toBe(true);
    }
    expect(planNodeSchema.safeParse(node("T-1", 1, [], { status: "waiting" as never })).success).toBe(false);
  });

  it("takes a gain from 0 to 1 and an integer depth", () => {
    const base = proposal(node("T-1", 1));
    for (const gain of [0, 0.5, 1])
      expect(planNodeProposalSchema.safeParse({ ...base, gain }).success).toBe(true);
    for (const gain of [-0.1, 1.1])
      expect(planNodeProposalSchema.safeParse({ ...base, gain }).success).toBe(false);
    expect(planNodeProposalSchema.safeParse({ ...base, depth: 1.5 }).success).toBe(false);
    expect(planNodeProposalSchema.safeParse({ ...base, sections: ["1.2"] }).success).toBe(true);
    expect(
      planGraphSchema.safeParse({ nodes: [{ ...base, status: "pending", result: { any: 1 } }] }).success,
    ).toBe(true);
  });

  it("tells the planner model what every field means", () => {
    const schema = z.toJSONSchema(planNodeProposalSchema) as {
      properties: Record<string, { description?: string }>;
    };
    const described = Object.fromEntries(
      Object.entries(schema.properties).map(([key, value]) => [key, value.description ?? ""]),
    );
    expect(described).toEqual({
      id: '"T-<n>": an existing node keeps its id, a new node takes a new number',
      type: "search retrieves evidence; llm reasons over it, no retrieval",
      title: "a short label",
      goal: "what the subtask must find out or produce, specific enough to act on",
      deps: "ids of the nodes it needs",
      depth: "DAG layer from 1, deeper than every dependency",
      sections: 'outline section ids it serves, e.g. ["1.2"]',
      gain: "expected information gain",
    });
  });

  it("matches ids T-<positive integer> only", () => {
    for (const id of ["T-1", "T-10", "T-999"]) expect(PLAN_NODE_ID_PATTERN.test(id)).toBe(true);
    for (const id of ["T-0", "T-01", "t-1", "T-", "xT-1", "T-1x", "T-1 ", "T1"])
      expect(PLAN_NODE_ID_PATTERN.test(id)).toBe(false);
  });
});

describe("readyFrontier ordering", () => {
  it("orders by gain within a depth, a missing gain counting as 0", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 1, [], { gain: 0 }),
        node("T-3", 1, [], { gain: 0.1 }),
        node("T-4", 1),
      ],
    };
    expect(ids(readyFrontier(graph))).toEqual(["T-3", "T-1", "T-2", "T-4"]);
    const reversed: PlanGraph = {
      nodes: [node("T-1", 1, [], { gain: 0.2 }), node("T-2", 1, [], { gain: 0.7 })],
    };
    expect(ids(readyFrontier(reversed))).toEqual(["T-2", "T-1"]);
    const deeper: PlanGraph = { nodes: [node("T-1", 2), node("T-2", 1)] };
    expect(ids(readyFrontier(deeper))).toEqual(["T-2", "T-1"]);
  });

  it("waits for every dependency, done or failed", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1, [], { status: "done" }),
        node("T-2", 1),
        node("T-3", 2, ["T-1", "T-2"]),
        node("T-4", 2, ["T-1"]),
      ],
    };
    expect(ids(readyFrontier(graph))).toEqual(["T-2", "T-4"]);
  });
});

describe("addNodes, pruneNodes, rewireNode, updateNode", () => {
  it("copies a proposal into a pending node without undefined keys", () => {
    const p: PlanNodeProposal = { id: "T-1", type: "llm", title: "t", goal: "g", deps: ["T-9"], depth: 2 };
    const added = addNodes({ nodes: [] }, [p]).nodes[0]!;
    expect(added).toStrictEqual({
      id: "T-1",
      type: "llm",
      title: "t",
      goal: "g",
      deps: ["T-9"],
      depth: 2,
      status: "pending",
    });
    p.deps.push("T-8");
    expect(added.deps).toEqual(["T-9"]);
    const withAll = addNodes({ nodes: [] }, [{ ...p, sections: ["2"], gain: 0 }]).nodes[0]!;
    expect(withAll).toMatchObject({ sections: ["2"], gain: 0 });
    const error = planError(() => addNodes({ nodes: [node("T-1", 1)] }, [p]));
    expect(error.message).toBe("Node T-1 already exists");
    expect(error.details).toEqual({ id: "T-1" });
  });

  it("drops pruned ids from the deps of pending nodes only, whatever their other deps", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 1),
        node("T-3", 2, ["T-2", "T-1"], { status: "done" }),
        node("T-4", 2, ["T-2"]),
        node("T-5", 3, ["T-4"]),
      ],
    };
    const next = pruneNodes(graph, ["T-1", "T-1"]);
    expect(next.nodes.map((n) => [n.id, n.status, n.deps])).toEqual([
      ["T-1", "pruned", []],
      ["T-2", "pending", []],
      ["T-3", "done", ["T-2", "T-1"]],
      ["T-4", "pending", ["T-2"]],
      ["T-5", "pending", ["T-4"]],
    ]);
    expect(next.nodes[3]).toBe(graph.nodes[3]);
    expect(next.nodes[2]).toBe(graph.nodes[2]);
    const both = pruneNodes(graph, ["T-2", "T-4"]);
    expect(both.nodes.map((n) => n.deps)).toEqual([[], [], ["T-2", "T-1"], ["T-2"], []]);
    const error = planError(() => pruneNodes(graph, ["T-3"]));
    expect(error.message).toBe("Cannot prune node T-3: it is done, only pending nodes change");
    expect(error.details).toEqual({ id: "T-3", status: "done" });
    expect(planError(() => pruneNodes(graph, ["T-7"])).details).toEqual({ id: "T-7" });
  });

  it("rewires a pending node with a copy of the deps", () => {
    const graph: PlanGraph = { nodes: [node("T-1", 1), node("T-2", 1), node("T-3", 2, ["T-1"])] };
    const deps = ["T-2"];
    const next = rewireNode(graph, "T-3", deps);
    deps.push("T-1");
    expect(next.nodes[2]).toStrictEqual(node("T-3", 2, ["T-2"]));
    expect(next.nodes[0]).toBe(graph.nodes[0]);
    expect(graph.nodes[2]!.deps).toEqual(["T-1"]);
    expect(planError(() => rewireNode(graph, "T-9", [])).message).toBe("No plan node with id T-9");
  });

  it("updates only the fields a patch names", () => {
    const graph: PlanGraph = { nodes: [node("T-1", 1, [], { gain: 0.2, sections: ["1"] })] };
    expect(updateNode(graph, "T-1", { goal: "new goal" }).nodes[0]).toStrictEqual(
      node("T-1", 1, [], { gain: 0.2, sections: ["1"], goal: "new goal" }),
    );
    const sections = ["3"];
    const next = updateNode(graph, "T-1", { sections, gain: 0 }).nodes[0]!;
    sections.push("4");
    expect(next).toStrictEqual(node("T-1", 1, [], { gain: 0, sections: ["3"] }));
    expect(updateNode(graph, "T-1", {}).nodes[0]).toStrictEqual(graph.nodes[0]);
    expect(updateNode(graph, "T-1", { title: "T" }).nodes[0]!.title).toBe("T");
    expect(updateNode({ nodes: [node("T-1", 1)] }, "T-1", { goal: "g" }).nodes[0]).toStrictEqual(
      node("T-1", 1, [], { goal: "g" }),
    );
  });
});

describe("setNodeStatus", () => {
  const allowed: [PlanNodeStatus, PlanNodeStatus][] = [
    ["pending", "running"],
    ["pending", "pruned"],
    ["running", "done"],
    ["running", "failed"],
  ];

  it("allows exactly pending → running | pruned and running → done | failed", () => {
    for (const from of PLAN_NODE_STATUSES) {
      for (const to of PLAN_NODE_STATUSES) {
        const graph: PlanGraph = { nodes: [node("T-1", 1, [], { status: from })] };
        const legal = allowed.some(([a, b]) => a === from && b === to);
        if (legal) expect(setNodeStatus(graph, "T-1", to).nodes[0]!.status).toBe(to);
        else {
          const error = planError(() => setNodeStatus(graph, "T-1", to));
          expect(error.message).toBe(`Node T-1 cannot go from ${from} to ${to}`);
          expect(error.details).toEqual({ id: "T-1", from, to });
        }
      }
    }
    expect(planError(() => setNodeStatus({ nodes: [] }, "T-4", "running")).message).toBe(
      "No plan node with id T-4",
    );
  });

  it("stores a result only when one is given, and prunes like pruneNodes", () => {
    const graph: PlanGraph = { nodes: [node("T-1", 1), node("T-2", 2, ["T-1"])] };
    const running = setNodeStatus(graph, "T-1", "running");
    expect(running.nodes[0]).toStrictEqual(node("T-1", 1, [], { status: "running" }));
    expect(setNodeStatus(running, "T-1", "failed", { error: "x" }).nodes[0]!.result).toEqual({ error: "x" });
    expect("result" in setNodeStatus(running, "T-1", "done").nodes[0]!).toBe(false);
    expect(setNodeStatus(graph, "T-1", "pruned").nodes[1]!.deps).toEqual([]);
    expect(setNodeStatus(graph, "T-1", "running").nodes[1]).toBe(graph.nodes[1]);
  });
});

describe("applyProposedPlan: what changes and what is listed", () => {
  const base: PlanGraph = {
    nodes: [
      node("T-1", 1, [], { status: "done", result: { evidence: ["E1"] } }),
      node("T-2", 1, [], { gain: 0.5, sections: ["1", "2"] }),
      node("T-3", 2, ["T-1", "T-2"]),
    ],
  };

  it("keeps an unchanged pending node as it is, deps compared as a set", () => {
    const { graph, diff } = applyProposedPlan(base, [
      proposal(base.nodes[0]!),
      proposal(base.nodes[1]!),
      { ...proposal(base.nodes[2]!), deps: ["T-2", "T-1"] },
    ]);
    expect(diff).toEqual({ added: [], pruned: [], rewired: [], updated: [], ignored: [] });
    expect(graph.nodes[1]).toBe(base.nodes[1]);
    expect(graph.nodes[2]).toBe(base.nodes[2]);
  });

  it.each([
    ["type", { type: "llm" }],
    ["title", { title: "other" }],
    ["goal", { goal: "other" }],
    ["depth", { depth: 2 }],
    ["gain", { gain: 0.6 }],
    ["no gain", { gain: undefined }],
    ["sections", { sections: ["2", "1"] }],
    ["fewer sections", { sections: ["1"] }],
    ["no sections", { sections: undefined }],
    ["more sections", { sections: ["1", "2", "3"] }],
    ["one section replaced", { sections: ["1", "3"] }],
  ])("lists a pending node whose %s changed as updated and takes the change", (_what, change) => {
    const changed = { ...proposal(base.nodes[1]!), ...change } as PlanNodeProposal;
    const { graph, diff } = applyProposedPlan(base, [
      proposal(base.nodes[0]!),
      changed,
      proposal(base.nodes[2]!),
    ]);
    expect(diff).toEqual({ added: [], pruned: [], rewired: [], updated: ["T-2"], ignored: [] });
    const expected: Record<string, unknown> = { ...changed, status: "pending" };
    for (const key of Object.keys(expected)) if (expected[key] === undefined) delete expected[key];
    expect(graph.nodes[1]).toStrictEqual(expected);
  });

  it("lists a pending node that gains sections as updated", () => {
    const { graph, diff } = applyProposedPlan(base, [
      proposal(base.nodes[0]!),
      proposal(base.nodes[1]!),
      { ...proposal(base.nodes[2]!), sections: ["2"] },
    ]);
    expect(diff.updated).toEqual(["T-3"]);
    expect(graph.nodes[2]!.sections).toEqual(["2"]);
  });

  it.each([
    ["a dep fewer", ["T-1"]],
    ["a dep more", ["T-1", "T-2", "T-4"]],
    ["a dep swapped", ["T-1", "T-4"]],
    ["a repeated dep", ["T-1", "T-1"]],
  ])("lists a pending node with %s as rewired and takes the deps", (_what, deps) => {
    const rewiredNode = { ...proposal(base.nodes[2]!), deps };
    const { graph, diff } = applyProposedPlan(base, [
      proposal(base.nodes[0]!),
      proposal(base.nodes[1]!),
      rewiredNode,
    ]);
    expect(diff).toEqual({ added: [], pruned: [], rewired: ["T-3"], updated: [], ignored: [] });
    expect(graph.nodes[2]!.deps).toEqual(deps);
  });

  it("keeps the result a pending node carried", () => {
    const withResult: PlanGraph = { nodes: [node("T-1", 1, [], { result: { retry: 1 } })] };
    const { graph } = applyProposedPlan(withResult, [{ ...proposal(withResult.nodes[0]!), goal: "again" }]);
    expect(graph.nodes[0]).toStrictEqual(node("T-1", 1, [], { goal: "again", result: { retry: 1 } }));
  });

  it("ignores changes to settled nodes but not an identical or absent re-proposal", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1, ["T-4"], { status: "done" }),
        node("T-2", 1, [], { status: "failed" }),
        node("T-3", 1, [], { status: "running" }),
        node("T-4", 1, [], { status: "pruned" }),
        node("T-5", 1, [], { status: "done" }),
      ],
    };
    const same = applyProposedPlan(graph, [
      { ...proposal(graph.nodes[0]!), deps: ["T-4", "T-4"] },
      proposal(graph.nodes[1]!),
      proposal(graph.nodes[2]!),
    ]);
    expect(same.diff).toEqual({ added: [], pruned: [], rewired: [], updated: [], ignored: [] });
    expect(same.graph.nodes).toEqual(graph.nodes);
    const changed = applyProposedPlan(graph, [
      { ...proposal(graph.nodes[0]!), deps: [] },
      { ...proposal(graph.nodes[1]!), depth: 2 },
      { ...proposal(graph.nodes[2]!), title: "x" },
      proposal(graph.nodes[3]!),
      proposal(graph.nodes[4]!),
    ]);
    expect(changed.diff).toEqual({
      added: [],
      pruned: [],
      rewired: [],
      updated: [],
      ignored: ["T-1", "T-2", "T-3", "T-4"],
    });
    for (const [i, n] of changed.graph.nodes.entries()) expect(n).toBe(graph.nodes[i]);
  });

  it("takes the first proposal of a repeated existing id and appends the rest; a new id is listed once", () => {
    const { graph, diff } = applyProposedPlan(base, [
      proposal(base.nodes[0]!),
      { ...proposal(base.nodes[1]!), goal: "first" },
      { ...proposal(base.nodes[1]!), goal: "second" },
      proposal(base.nodes[2]!),
      proposal(node("T-4", 1)),
      { ...proposal(node("T-4", 1)), goal: "again" },
    ]);
    expect(diff).toEqual({ added: ["T-2", "T-4"], pruned: [], rewired: [], updated: ["T-2"], ignored: [] });
    expect(graph.nodes.map((n) => [n.id, n.goal])).toEqual([
      ["T-1", "goal T-1"],
      ["T-2", "first"],
      ["T-3", "goal T-3"],
      ["T-2", "second"],
      ["T-4", "goal T-4"],
      ["T-4", "again"],
    ]);
  });
});

describe("nextNodeId and graphSummary", () => {
  it("numbers after the highest well-formed id, in any order", () => {
    expect(nextNodeId({ nodes: [node("T-9", 1), node("T-2", 1)] })).toBe("T-10");
    expect(nextNodeId({ nodes: [node("T-x", 1)] })).toBe("T-1");
  });

  it("counts every status", () => {
    const graph: PlanGraph = {
      nodes: (
        ["pending", "running", "running", "done", "done", "done", "failed", "pruned", "pruned"] as const
      ).map((status, i) => node(`T-${i + 1}`, 1, [], { status })),
    };
    expect(graphSummary(graph)).toEqual({ total: 9, pending: 1, running: 2, done: 3, failed: 1, pruned: 2 });
    expect(graphSummary({ nodes: [] })).toEqual({
      total: 0,
      pending: 0,
      running: 0,
      done: 0,
      failed: 0,
      pruned: 0,
    });
  });
});
