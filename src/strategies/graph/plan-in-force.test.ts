/**
 * graph researches its own plan: a rejected revision leaves the plan in force, an early
 * "synthesize" waits for the work the report depends on, and a planner's prune is recorded with
 * its reason. In every case the report node starts only after its dependencies ended.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_GRAPH_CALLS,
  initPlanAnswer,
  type ListedNode,
  parsePlan,
  proposal,
} from "../../../test/research/graph-answers.ts";
import type { ChatBody } from "../../../test/research/model-script.ts";
import { dependencyOrderViolations } from "../../../test/research/plan-order.ts";
import { json, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent } from "../../core/events.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
/** INITPLAN's nodes in the default script: two searches (sections 1–2, 3–4) and a cross-check. */
const INITPLAN = ["T-5", "T-6", "T-7"];

const seqOf = (events: DossierEvent[], pred: (e: DossierEvent) => boolean) => events.find(pred)?.seq ?? -1;
const reportStart = (events: DossierEvent[]) =>
  seqOf(events, (e) => e.type === "node-start" && e.nodeType === "report");
const ended = (events: DossierEvent[], id: string) =>
  seqOf(events, (e) => e.type === "node-end" && e.nodeId === id);

function assessmentsOf(user: string) {
  const ids = /Executed nodes to assess now: (.*)/.exec(user)?.[1]?.split(", ") ?? [];
  return ids
    .filter((id) => id.startsWith("T-"))
    .map((nodeId) => ({ nodeId, verdict: "ADEQUATE", reason: "usable evidence" }));
}

/** A planner answer that keeps the plan and asks for the report at once. */
function synthesizeNow(body: ChatBody) {
  const user = userText(body);
  return json({
    assessments: assessmentsOf(user),
    decision: { changePlan: false, reasons: [], explanation: "enough is known" },
    plan: parsePlan(user).map(proposal),
    actions: [],
    synthesize: true,
  });
}

/** INITPLAN's default answer, running only its first search (T-5) first. */
function firstSearchOnly(body: ChatBody) {
  const answer = initPlanAnswer(userText(body));
  if (answer.kind !== "text") return answer;
  return json({ ...JSON.parse(answer.text), actions: ["T-5"] });
}

/** A revision that stays illegal after repair (two nodes share an id), asking for the report. */
function illegalRevision(body: ChatBody) {
  const user = userText(body);
  const nodes = parsePlan(user);
  const twin = { id: "T-90", type: "search", title: "Twin", goal: "topic twin details", deps: [], depth: 2 };
  return json({
    assessments: assessmentsOf(user),
    decision: { changePlan: true, reasons: ["new-gap"], explanation: "add a twin search" },
    plan: [...nodes.map(proposal), twin, { ...twin, title: "Twin again" }],
    actions: ["T-90"],
    synthesize: true,
  });
}

function expectInitPlanRanBeforeReport(events: DossierEvent[]) {
  const start = reportStart(events);
  expect(start).toBeGreaterThan(0);
  for (const id of INITPLAN) {
    const end = ended(events, id);
    expect(end, `${id} ended`).toBeGreaterThan(0);
    expect(end, `${id} ended before the report started`).toBeLessThan(start);
  }
  expect(dependencyOrderViolations(events)).toEqual([]);
  expect(events.some((e) => e.type === "node-pruned")).toBe(false);
}

describe("graph: the plan in force is researched", () => {
  it("a revision rejected after its re-ask leaves the plan in force: its frontier runs before the report", async () => {
    let planner = 0;
    world = await startResearchWorld({
      override: (role, body) => {
        if (role !== "graph-planner") return undefined;
        planner += 1;
        return planner <= 2 ? illegalRevision(body) : undefined;
      },
      // The first planner turn (once INITPLAN's searches ran) is asked twice (illegal, re-asked,
      // rejected); then the default turn synthesizes.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "graph-planner": 3 },
    });
    const result = await world.research({ query });
    const events = result.events;
    const codes = events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    expect(codes).toEqual(["PLAN_ILLEGAL", "PLAN_REJECTED"]);
    // The rejected revision's twin never entered the plan, and its "synthesize" did not stop the run.
    expect(events.some((e) => e.type === "node-start" && e.nodeId === "T-90")).toBe(false);
    // Nor is its "synthesize" honoured: nothing had to be deferred.
    expect(events.some((e) => e.type === "decision" && e.reason.startsWith("synthesis deferred"))).toBe(
      false,
    );
    expectInitPlanRanBeforeReport(events);
    // The first batch after the rejection is the current plan's ready frontier: the cross-check.
    const rejected = seqOf(events, (e) => e.type === "warning" && e.code === "PLAN_REJECTED");
    expect(ended(events, "T-5")).toBeLessThan(rejected);
    expect(ended(events, "T-6")).toBeLessThan(rejected);
    const firstStart = events.find((e) => e.type === "node-start" && e.seq > rejected);
    expect(firstStart).toMatchObject({ nodeId: "T-7" });
    const stop = events.find((e) => e.type === "decision" && e.decision === "stop");
    expect(stop).toMatchObject({ reason: "planner-synthesize" });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
  });

  it('"synthesize" at the first planner turn runs the pending work the report depends on first', async () => {
    world = await startResearchWorld({
      override: (role, body) => (role === "graph-planner" ? synthesizeNow(body) : undefined),
      // INITPLAN's searches run first (no planner turn); one deferred synthesis (the cross-check), then the report.
      expectCalls: DEFAULT_GRAPH_CALLS,
    });
    const result = await world.research({ query });
    const events = result.events;
    expectInitPlanRanBeforeReport(events);
    const decisions = events.flatMap((e) => (e.type === "decision" ? [`${e.decision}: ${e.reason}`] : []));
    expect(decisions).toEqual([
      expect.stringMatching(/^continue: initial plan/),
      "continue: plan kept: enough is known",
      "continue: synthesis deferred: the report depends on 1 pending node(s) (T-7); the ready ones run first",
      "continue: plan kept: enough is known",
      "stop: planner-synthesize",
    ]);
    // The deferred synthesis ran the cross-check, and only it, before the report.
    const deferred = seqOf(events, (e) => e.type === "decision" && e.reason.startsWith("synthesis deferred"));
    const after = events.flatMap((e) => (e.type === "node-start" && e.seq > deferred ? [e.nodeId] : []));
    expect(after).toEqual(["T-7", "T-4"]);
    expect(result.record.stopReason).toBe("planner-synthesize");
  });

  it('"synthesize" while several nodes the report depends on are pending runs the ready ones, then the rest', async () => {
    world = await startResearchWorld({
      override: (role, body) =>
        role === "init-plan"
          ? firstSearchOnly(body)
          : role === "graph-planner"
            ? synthesizeNow(body)
            : undefined,
      // T-5, then T-6 (deferred once), then T-7 (deferred again): three batches.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "graph-planner": 3, critic: 3, "ephemeral-rubric": 3 },
    });
    const result = await world.research({ query });
    const events = result.events;
    expectInitPlanRanBeforeReport(events);
    const deferrals = events.flatMap((e) =>
      e.type === "decision" && e.reason.startsWith("synthesis deferred") ? [e.reason] : [],
    );
    expect(deferrals).toEqual([
      "synthesis deferred: the report depends on 2 pending node(s) (T-6, T-7); the ready ones run first",
      "synthesis deferred: the report depends on 1 pending node(s) (T-7); the ready ones run first",
    ]);
    const started = events.flatMap((e) =>
      e.type === "node-start" && e.nodeType !== "outline" ? [e.nodeId] : [],
    );
    expect(started.slice(2)).toEqual(["T-5", "T-6", "T-7", "T-4"]);
    expect(result.record.stopReason).toBe("planner-synthesize");
  });

  it("a planner's prune carries its reason; the report still covers every level-1 section", async () => {
    let planner = 0;
    const prune = (body: ChatBody) => {
      const user = userText(body);
      const nodes = parsePlan(user);
      const keep = (n: ListedNode) => n.id !== "T-6";
      const without = (deps: string[]) => deps.filter((d) => d !== "T-6");
      return json({
        assessments: assessmentsOf(user),
        decision: {
          changePlan: true,
          reasons: ["failed-or-off-topic"],
          explanation: "PRUNE-REASON the second search repeats the survey",
        },
        plan: nodes.filter(keep).map((n) => ({ ...proposal(n), deps: without(n.deps) })),
        actions: ["T-5"],
        synthesize: false,
      });
    };
    // INITPLAN runs only its first search first, so the second is still pending at the first
    // planner turn, which prunes it.
    world = await startResearchWorld({
      override: (role, body) => {
        if (role === "init-plan") return firstSearchOnly(body);
        if (role !== "graph-planner") return undefined;
        planner += 1;
        return planner === 1 ? prune(body) : undefined;
      },
      // T-6 never runs: one search node fewer (two rounds, one page, one sub-report).
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "inner-step": 2, reader: 3, "sub-report": 1 },
    });
    const result = await world.research({ query });
    const events = result.events;
    const pruned = events.filter((e) => e.type === "node-pruned");
    expect(pruned).toMatchObject([
      {
        nodeId: "T-6",
        by: "planner",
        reason:
          "pruned by the planner (failed-or-off-topic): PRUNE-REASON the second search repeats the survey",
      },
    ]);
    const last = events.filter((e) => e.type === "plan-update").at(-1) as unknown as {
      graph: { nodes: { id: string; status: string; result?: { summary: string } }[] };
    };
    expect(last.graph.nodes.find((n) => n.id === "T-6")).toMatchObject({
      status: "pruned",
      result: { summary: expect.stringContaining("PRUNE-REASON") },
    });
    expect(events.some((e) => e.type === "node-start" && e.nodeId === "T-6")).toBe(false);
    // The prune came at the first planner turn, after INITPLAN's first batch (T-5 alone) ran.
    expect(ended(events, "T-5")).toBeLessThan(pruned[0]!.seq);
    expect(events.find((e) => e.type === "phase" && e.phase === "researching")).toMatchObject({
      detail: "iteration 1: 1 nodes",
    });
    expect(dependencyOrderViolations(events)).toEqual([]);
    // Every level-1 section of the report cites some evidence, and every citation resolves.
    const report = result.outcome!.report;
    const chunks = report.body.split(/^## /m).slice(1);
    for (const section of report.outline.sections) {
      const text = chunks.find((c) => c.startsWith(`${section.title}\n`));
      expect(text, section.title).toBeDefined();
      expect(citedNumbers(text!).length, section.title).toBeGreaterThan(0);
    }
    expect(citedNumbers(report.body).every((n) => n >= 1 && n <= report.references.length)).toBe(true);
  });
  it("the report node is never a research action: a planner that never synthesizes ends on an empty frontier", async () => {
    world = await startResearchWorld({
      override: (role, body) => {
        if (role !== "graph-planner") return undefined;
        const user = userText(body);
        const pending = parsePlan(user).filter((n) => n.status === "pending" && n.type !== "report");
        return json({
          assessments: assessmentsOf(user),
          decision: { changePlan: false, reasons: [], explanation: "keep going" },
          plan: parsePlan(user).map(proposal),
          actions: pending.map((n) => n.id),
          synthesize: false,
        });
      },
      expectCalls: DEFAULT_GRAPH_CALLS,
    });
    const result = await world.research({ query });
    const events = result.events;
    expect(events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "frontier-empty",
    });
    expect(result.record.stopReason).toBe("frontier-empty");
    const report = events.filter((e) => e.type === "node-start" && e.nodeType === "report");
    expect(report).toHaveLength(1);
    expect(
      events.some((e) => e.type === "gate-verdict" && e.nodeId === (report[0] as { nodeId: string }).nodeId),
    ).toBe(false);
    expect(report[0]!.seq).toBeGreaterThan(
      seqOf(events, (e) => e.type === "decision" && e.decision === "stop"),
    );
    expectInitPlanRanBeforeReport(events);
  });
});
