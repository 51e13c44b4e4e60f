import { describe, expect, it } from "vitest";
import type { RunEvent } from "./run-state.ts";
import { eventSummary, filterEvents, visibleWindow } from "./timeline-logic.ts";

const ev = (seq: number, type: string, fields: Record<string, unknown> = {}): RunEvent => ({
  runId: "r",
  seq,
  ts: "t",
  type,
  ...fields,
});

describe("event timeline", () => {
  it("summarises gate verdicts, re-plans and the stop reason", () => {
    expect(
      eventSummary(ev(1, "gate-verdict", { nodeId: "T-2", verdict: "revise", feedback: "narrow it" })),
    ).toBe("T-2: revise — narrow it");
    expect(eventSummary(ev(2, "plan-update", { iteration: 3, graph: { nodes: [{}, {}] } }))).toBe(
      "iteration 3: 2 nodes",
    );
    expect(
      eventSummary(
        ev(5, "plan-update", {
          iteration: 2,
          graph: { nodes: [{ id: "T-1" }, { id: "T-2" }, { id: "T-3" }] },
          diff: { added: ["T-3"], pruned: ["T-1"], rewired: [], updated: [], ignored: [] },
        }),
      ),
    ).toBe("iteration 2: re-plan, 2 → 3 nodes (+1 added, −1 pruned)");
    expect(eventSummary(ev(3, "run-end", { status: "completed", stopReason: "budget: tokens" }))).toBe(
      "completed: budget: tokens",
    );
    expect(eventSummary(ev(4, "draft-scored"))).toBe("");
  });

  it("filters by type and text", () => {
    const events = [
      ev(1, "phase", { phase: "planning" }),
      ev(2, "gate-verdict", { nodeId: "T-1", verdict: "approve", feedback: "" }),
      ev(3, "phase", { phase: "writing" }),
    ];
    expect(filterEvents(events, "phase", "").map((e) => e.seq)).toEqual([1, 3]);
    expect(filterEvents(events, "", "WRIT").map((e) => e.seq)).toEqual([3]);
    expect(filterEvents(events, "", "approve").map((e) => e.seq)).toEqual([2]);
  });

  it("draws only the rows in view, whatever the length of the list", () => {
    expect(visibleWindow(0, 320, 26, 10_000)).toEqual({ start: 0, end: 21 });
    expect(visibleWindow(26 * 5000, 320, 26, 10_000)).toEqual({ start: 4992, end: 5021 });
    expect(visibleWindow(26 * 9999, 320, 26, 10_000)).toEqual({ start: 9991, end: 10_000 });
    expect(visibleWindow(0, 320, 26, 0)).toEqual({ start: 0, end: 0 });
  });
});
