import { describe, expect, it } from "vitest";
import { DossierError } from "./errors.ts";
import type { PlanGraph, PlanNode } from "./plan-graph.ts";
import { assertLegal, checkLegality, PLAN_DEFAULT_MAX_DEPTH } from "./plan-graph-legality.ts";

function node(id: string, depth: number, deps: string[] = [], extra: Partial<PlanNode> = {}): PlanNode {
  return { id, type: "search", title: id, goal: id, deps, depth, status: "pending", ...extra };
}

const report = (id: string, depth: number, deps: string[]): PlanNode =>
  node(id, depth, deps, { type: "report" });

function illegal(graph: PlanGraph, options = {}): DossierError {
  try {
    assertLegal(graph, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DossierError);
    expect((error as DossierError).code).toBe("PLAN_ILLEGAL");
    return error as DossierError;
  }
  throw new Error("expected PLAN_ILLEGAL");
}

describe("checkLegality, rule by rule", () => {
  it("names each id problem in a sentence", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-1", 1),
        node("xT-2", 1),
        node("T-3x", 1),
        report("T-4", 2, ["T-1", "xT-2", "T-3x"]),
      ],
    };
    expect(checkLegality(graph)).toEqual([
      { code: "DUPLICATE_ID", nodeId: "T-1", message: "Id T-1 is used by more than one node" },
      { code: "BAD_ID", nodeId: "xT-2", message: 'Id "xT-2" is not of the form T-<positive integer>' },
      { code: "BAD_ID", nodeId: "T-3x", message: 'Id "T-3x" is not of the form T-<positive integer>' },
    ]);
  });

  it("accepts ids of several digits and refuses a leading zero", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-10", 1),
        node("T-205", 1),
        node("T-01", 1),
        report("T-3", 2, ["T-10", "T-205", "T-01"]),
      ],
    };
    expect(checkLegality(graph).map((v) => [v.code, v.nodeId])).toEqual([["BAD_ID", "T-01"]]);
  });

  it("checks dependencies against the first node of a repeated id", () => {
    const graph: PlanGraph = {
      nodes: [node("T-1", 1), node("T-2", 2, ["T-1"]), node("T-1", 3), report("T-4", 4, ["T-1", "T-2"])],
    };
    // T-2 (depth 2) depends on T-1: fine against the first T-1 (depth 1), not against the second (3).
    expect(checkLegality(graph).map((v) => v.code)).toEqual(["DUPLICATE_ID"]);
  });

  it("allows depths from 1 to the limit, by default 5", () => {
    expect(PLAN_DEFAULT_MAX_DEPTH).toBe(5);
    const graph: PlanGraph = {
      nodes: [node("T-1", 1), node("T-2", 4, ["T-1"]), report("T-3", 5, ["T-1", "T-2"])],
    };
    expect(checkLegality(graph)).toEqual([]);
    expect(checkLegality(graph, { maxDepth: 5 })).toEqual([]);
    expect(checkLegality(graph, {})).toEqual([]);
    expect(checkLegality(graph, { maxDepth: 4 })).toEqual([
      {
        code: "DEPTH_LIMIT",
        nodeId: "T-3",
        message: "Node T-3 has depth 5; depth must be an integer in 1..4",
      },
    ]);
    const shallow: PlanGraph = { nodes: [node("T-1", 0), report("T-2", 1, ["T-1"])] };
    expect(checkLegality(shallow)).toEqual([
      {
        code: "DEPTH_LIMIT",
        nodeId: "T-1",
        message: "Node T-1 has depth 0; depth must be an integer in 1..5",
      },
    ]);
  });

  it("flags a pruned dependency of a live node only", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1, [], { status: "pruned" }),
        node("T-2", 2, ["T-1"], { status: "pruned" }),
        node("T-3", 2, ["T-1"], { status: "done" }),
        report("T-4", 3, ["T-3"]),
      ],
    };
    expect(checkLegality(graph)).toEqual([
      { code: "PRUNED_DEP", nodeId: "T-3", message: "Node T-3 depends on T-1, which is pruned" },
    ]);
  });

  it("checks every dependency of a node, after a missing or self one", () => {
    const graph: PlanGraph = {
      nodes: [node("T-1", 2), node("T-2", 2, ["T-2", "T-8", "T-1"]), report("T-3", 3, ["T-1", "T-2"])],
    };
    expect(checkLegality(graph).map((v) => v.code)).toEqual(["SELF_DEP", "MISSING_DEP", "DEP_DEPTH"]);
  });

  it("reports a three-node cycle once, its members in creation order", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1, ["T-2"]),
        node("T-2", 2, ["T-3"]),
        node("T-3", 3, ["T-1"]),
        report("T-4", 4, ["T-1", "T-2", "T-3"]),
      ],
    };
    const cycles = checkLegality(graph).filter((v) => v.code === "CYCLE");
    expect(cycles).toEqual([
      { code: "CYCLE", nodeId: "T-1", message: "Nodes T-1, T-2, T-3 depend on each other in a cycle" },
    ]);
  });

  it("finds a cycle whose member also depends on a node outside it, visited before", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 2, ["T-3"]),
        node("T-3", 3, ["T-2", "T-1"]),
        report("T-4", 4, ["T-1", "T-2", "T-3"]),
      ],
    };
    expect(checkLegality(graph).filter((v) => v.code === "CYCLE")).toEqual([
      { code: "CYCLE", nodeId: "T-2", message: "Nodes T-2, T-3 depend on each other in a cycle" },
    ]);
  });

  it("lists separate cycles in the creation order of their first members", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 2, ["T-3", "T-2"]),
        node("T-2", 2, ["T-1"]),
        node("T-3", 2, ["T-4"]),
        node("T-4", 2, ["T-3"]),
        node("T-5", 2, ["T-5", "T-9"]),
        report("T-6", 3, ["T-1", "T-2", "T-3", "T-4", "T-5"]),
      ],
    };
    expect(
      checkLegality(graph)
        .filter((v) => v.code === "CYCLE")
        .map((v) => v.message),
    ).toEqual([
      "Nodes T-1, T-2 depend on each other in a cycle",
      "Nodes T-3, T-4 depend on each other in a cycle",
    ]);
  });

  it("finds a cycle between nested cycles and reached from a later start", () => {
    // T-1 → T-2 → T-3 → T-2 and T-3 → T-1: one component of three; T-4 → T-1 is outside it.
    const graph: PlanGraph = {
      nodes: [
        node("T-4", 1, ["T-1"]),
        node("T-1", 1, ["T-2"]),
        node("T-2", 1, ["T-3"]),
        node("T-3", 1, ["T-2", "T-1"]),
        report("T-5", 2, ["T-1", "T-2", "T-3", "T-4"]),
      ],
    };
    expect(checkLegality(graph).filter((v) => v.code === "CYCLE")).toEqual([
      { code: "CYCLE", nodeId: "T-1", message: "Nodes T-1, T-2, T-3 depend on each other in a cycle" },
    ]);
  });

  it("requires each live report to depend on every live non-report node, in node order", () => {
    const graph: PlanGraph = {
      nodes: [
        node("T-1", 1),
        node("T-2", 1),
        node("T-3", 1, [], { status: "pruned" }),
        report("T-4", 2, ["T-2"]),
        report("T-5", 2, []),
      ],
    };
    expect(checkLegality(graph)).toEqual([
      {
        code: "REPORT_COUNT",
        nodeId: "T-5",
        message: "Node T-5 is a second live report node; the plan needs exactly one",
      },
      { code: "REPORT_DEPS", nodeId: "T-4", message: "Report node T-4 does not depend on live node T-1" },
      { code: "REPORT_DEPS", nodeId: "T-5", message: "Report node T-5 does not depend on live node T-1" },
      { code: "REPORT_DEPS", nodeId: "T-5", message: "Report node T-5 does not depend on live node T-2" },
    ]);
    const onlyPruned: PlanGraph = {
      nodes: [node("T-1", 1), report("T-2", 2, ["T-1"]).valueOf() as PlanNode],
    };
    onlyPruned.nodes[1]!.status = "pruned";
    expect(checkLegality(onlyPruned).map((v) => v.code)).toEqual(["REPORT_COUNT"]);
    // A plan-wide violation has no node at all, not an undefined one.
    expect(checkLegality(onlyPruned)[0]).toStrictEqual({
      code: "REPORT_COUNT",
      message: "The plan has no live report node; it needs exactly one",
    });
  });
});

describe("assertLegal", () => {
  it("passes a legal graph", () => {
    expect(() => assertLegal({ nodes: [node("T-1", 1), report("T-2", 2, ["T-1"])] })).not.toThrow();
  });

  it("summarises up to five violations, then counts the rest", () => {
    const five: PlanGraph = {
      nodes: [node("T-0", 1), node("T-00", 1), node("T-a", 1), node("T-b", 1), node("T-c", 1)],
    };
    const error = illegal(five);
    expect(error.details.violations).toHaveLength(6);
    expect(error.message).toBe(
      'Illegal plan: Id "T-0" is not of the form T-<positive integer>; Id "T-00" is not of the form T-<positive integer>; ' +
        'Id "T-a" is not of the form T-<positive integer>; Id "T-b" is not of the form T-<positive integer>; ' +
        'Id "T-c" is not of the form T-<positive integer> (and 1 more)',
    );
    const exactlyFive: PlanGraph = { nodes: five.nodes.slice(0, 4) };
    const second = illegal(exactlyFive);
    expect(second.details.violations).toHaveLength(5);
    expect(second.message).toBe(
      'Illegal plan: Id "T-0" is not of the form T-<positive integer>; Id "T-00" is not of the form T-<positive integer>; ' +
        'Id "T-a" is not of the form T-<positive integer>; Id "T-b" is not of the form T-<positive integer>; ' +
        "The plan has no live report node; it needs exactly one",
    );
  });

  it("applies the depth limit it is given", () => {
    const graph: PlanGraph = { nodes: [node("T-1", 1), report("T-2", 2, ["T-1"])] };
    expect(() => assertLegal(graph, { maxDepth: 2 })).not.toThrow();
    expect(illegal(graph, { maxDepth: 1 }).message).toBe(
      "Illegal plan: Node T-2 has depth 2; depth must be an integer in 1..1",
    );
  });
});
