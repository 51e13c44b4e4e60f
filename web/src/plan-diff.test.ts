import { describe, expect, it } from "vitest";
import { changeSummary, isReplan, nodeMark, planChange, planNodes, replanSummary } from "./plan-diff.ts";
import type { RunEvent } from "./run-state.ts";

const node = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  type: "search",
  title: `Node ${id}`,
  goal: `Goal ${id}`,
  deps: [],
  depth: 1,
  status: "pending",
  ...fields,
});
const ev = (seq: number, type: string, fields: Record<string, unknown> = {}): RunEvent => ({
  runId: "r",
  seq,
  ts: "t",
  type,
  ...fields,
});

const first = ev(3, "plan-update", {
  iteration: 0,
  graph: {
    nodes: [node("T-1", { status: "done" }), node("T-2"), node("T-3"), node("T-4", { type: "report" })],
  },
});
const replan = ev(9, "plan-update", {
  iteration: 1,
  graph: {
    nodes: [
      node("T-1", { status: "done" }),
      node("T-2", { status: "pruned" }),
      node("T-3", { title: "Narrower", deps: ["T-1"], depth: 2 }),
      node("T-4", { type: "report" }),
      node("T-5", { title: "Detail 5" }),
    ],
  },
  diff: { added: ["T-5"], pruned: ["T-2"], rewired: ["T-3"], updated: ["T-3"], ignored: ["T-1"] },
});

describe("re-plans in the trace", () => {
  it("tells a re-plan from a status refresh and summarises it in one line", () => {
    expect(isReplan(replan)).toBe(true);
    expect(isReplan(first)).toBe(false);
    expect(isReplan(ev(1, "phase"))).toBe(false);
    expect(replanSummary(replan)).toBe(
      "iteration 1: re-plan, 4 → 5 nodes (+1 added, −1 pruned, 1 changed, 1 ignored)",
    );
    expect(replanSummary(ev(2, "plan-update", { iteration: 2, graph: { nodes: [] }, diff: {} }))).toBe(
      "iteration 2: re-plan, 0 → 0 nodes",
    );
  });

  it("compares the plan before and after: added, pruned, changed field by field, kept, ignored", () => {
    const events = [ev(1, "phase"), first, ev(5, "node-end", { nodeId: "T-1" }), replan, ev(10, "phase")];
    const c = planChange(events, replan);
    expect(c.iteration).toBe(1);
    expect(c.before?.map((n) => n.id)).toEqual(["T-1", "T-2", "T-3", "T-4"]);
    expect(c.after.map((n) => n.id)).toEqual(["T-1", "T-2", "T-3", "T-4", "T-5"]);
    expect(c.added.map((n) => [n.id, n.title])).toEqual([["T-5", "Detail 5"]]);
    expect(c.pruned.map((n) => n.id)).toEqual(["T-2"]);
    expect(c.changed).toEqual([
      {
        node: expect.objectContaining({ id: "T-3" }),
        fields: [
          { field: "title", before: "Node T-3", after: "Narrower" },
          { field: "depth", before: "1", after: "2" },
          { field: "deps", before: "none", after: "T-1" },
        ],
      },
    ]);
    expect(c.kept).toEqual(["T-1", "T-4"]);
    expect(c.ignored).toEqual(["T-1"]);
    expect(changeSummary(c)).toBe(
      "iteration 1: re-plan, 4 → 5 nodes (+1 added, −1 pruned, 1 changed, 1 ignored)",
    );
    expect(["T-1", "T-2", "T-3", "T-5"].map((id) => nodeMark(c, id))).toEqual([
      "kept",
      "pruned",
      "changed",
      "added",
    ]);
  });

  it("falls back on the diff's ids when the earlier plan is no longer loaded", () => {
    const c = planChange([replan], replan);
    expect(c.before).toBeNull();
    expect(c.added.map((n) => n.id)).toEqual(["T-5"]);
    expect(c.pruned.map((n) => n.id)).toEqual(["T-2"]);
    expect(c.changed.map((x) => [x.node.id, x.fields])).toEqual([["T-3", []]]);
    expect(c.kept).toEqual(["T-1", "T-4"]);
    expect(changeSummary(c)).toBe(
      "iteration 1: re-plan, 4 → 5 nodes (+1 added, −1 pruned, 1 changed, 1 ignored)",
    );
  });

  it("reads malformed graphs as empty or with defaults, never throwing", () => {
    expect(planNodes(null)).toEqual([]);
    expect(planNodes({ nodes: "x" })).toEqual([]);
    expect(planNodes({ nodes: [null, { id: 5, deps: ["a", 3] }] })).toEqual([
      { id: "", type: "", title: "", goal: "", deps: ["a"], depth: 1, status: "pending" },
    ]);
  });
});
