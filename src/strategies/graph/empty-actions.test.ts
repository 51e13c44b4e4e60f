/**
 * An empty action set from the planner ends the loop (DuMate, Algorithm 2, line 5): no node of
 * the frontier runs after it, and the report is written from what the plan gathered. (A planner
 * that could not decide — a failure, a rejected plan — still runs the ready frontier: cycle.ts.)
 */

import { afterEach, describe, expect, it } from "vitest";
import { parsePlan, proposal } from "../../../test/research/graph-answers.ts";
import type { ChatBody, ScriptRole } from "../../../test/research/model-script.ts";
import { json, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("graph: an empty action set", () => {
  it("stops the loop: the pending frontier never runs, the report is written", async () => {
    let pendingAtTurn: string[] = [];
    world = await startResearchWorld({
      override: (role: ScriptRole, body: ChatBody) => {
        if (role !== "graph-planner") return undefined;
        const plan = parsePlan(userText(body));
        pendingAtTurn = plan.filter((n) => n.status === "pending" && n.type !== "report").map((n) => n.id);
        return json({
          assessments: [],
          decision: { changePlan: false, reasons: [], explanation: "nothing more to do" },
          plan: plan.map(proposal),
          actions: [],
          synthesize: false,
        });
      },
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(world.script.counts["graph-planner"]).toBe(1);
    expect(result.record).toMatchObject({ status: "completed", stopReason: "no-actions" });
    // What was pending when the planner chose nothing never started.
    expect(pendingAtTurn.length).toBeGreaterThan(0);
    const started = new Set(result.events.flatMap((e) => (e.type === "node-start" ? [e.nodeId] : [])));
    for (const id of pendingAtTurn) expect(started.has(id), id).toBe(false);
    // …and are pruned saying why; the planner was told that choosing none ends the research.
    expect(result.events.filter((e) => e.type === "node-pruned")).toEqual(
      pendingAtTurn.map((nodeId) =>
        expect.objectContaining({
          nodeId,
          by: "stop",
          reason: "not run: the planner chose no further action",
        }),
      ),
    );
    expect(world.script.systems["graph-planner"][0]).toContain("choosing none ends the research");
    expect(result.events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "no-actions",
    });
    expect(result.outcome?.report.references.length).toBeGreaterThan(0);
  });
});
