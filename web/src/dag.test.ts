import { describe, expect, it } from "vitest";
import { dagInput, layoutDag, NODE_W } from "./dag.ts";
import type { PlanNodeView } from "./run-state.ts";

const node = (id: string, deps: string[], status: PlanNodeView["status"] = "pending"): PlanNodeView => ({
  id,
  type: "search",
  title: `Title ${id}`,
  goal: "",
  deps,
  depth: 1,
  status,
});

describe("plan DAG", () => {
  it("keeps edges between existing nodes only, without self-loops or repeats", () => {
    const input = dagInput([
      node("T-1", []),
      node("T-2", ["T-1", "T-1", "T-9"]),
      node("T-3", ["T-3", "T-2"], "done"),
    ]);
    expect(input.nodes).toEqual([
      { id: "T-1", label: "Title T-1", status: "pending" },
      { id: "T-2", label: "Title T-2", status: "pending" },
      { id: "T-3", label: "Title T-3", status: "done" },
    ]);
    expect(input.edges).toEqual([
      { from: "T-1", to: "T-2" },
      { from: "T-2", to: "T-3" },
    ]);
  });

  it("lays nodes out in layers one past their deepest dependency, in creation order", () => {
    const layout = layoutDag(
      dagInput([
        node("T-1", []),
        node("T-2", []),
        node("T-3", ["T-1"]),
        node("T-4", ["T-2", "T-3"]),
        node("T-5", ["T-1"]),
      ]),
    );
    const at = Object.fromEntries(layout.nodes.map((n) => [n.id, n]));
    expect([
      at["T-1"]!.layer,
      at["T-2"]!.layer,
      at["T-3"]!.layer,
      at["T-4"]!.layer,
      at["T-5"]!.layer,
    ]).toEqual([0, 0, 1, 2, 1]);
    expect(at["T-2"]!.y).toBeGreaterThan(at["T-1"]!.y);
    expect(at["T-5"]!.y).toBeGreaterThan(at["T-3"]!.y);
    // Every edge goes left to right, from a box's right side to the next one's left side.
    for (const e of layout.edges) {
      expect(e.x2).toBeGreaterThan(e.x1);
      expect(e.x1).toBe(at[e.from]!.x + NODE_W);
    }
    expect(layout.edges).toHaveLength(4);
    expect(layout.width).toBeGreaterThanOrEqual(3 * NODE_W);
  });

  it("cuts a cycle instead of looping and lays out an empty plan as nothing", () => {
    const layout = layoutDag({
      nodes: [
        { id: "a", label: "a", status: "pending" },
        { id: "b", label: "b", status: "pending" },
      ],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "a" },
      ],
    });
    expect(layout.nodes).toHaveLength(2);
    expect(layoutDag({ nodes: [], edges: [] })).toEqual({ nodes: [], edges: [], width: 0, height: 0 });
  });
});
