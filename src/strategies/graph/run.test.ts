import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS, parsePlan, proposal } from "../../../test/research/graph-answers.ts";
import type { ChatBody, ScriptRole } from "../../../test/research/model-script.ts";
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
const seqOf = (events: DossierEvent[], pred: (e: DossierEvent) => boolean) => events.find(pred)?.seq ?? -1;

describe("graph strategy", () => {
  it("runs the protocol: router, survey, fixed outline, rubric, INITPLAN, planner loop, gate, writer", async () => {
    world = await startResearchWorld({ latencyMs: 30, expectCalls: DEFAULT_GRAPH_CALLS });
    const result = await world.research({ query });
    expect(result.prepared.strategy).toBe("graph");
    // The run reports the stop its decision recorded.
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    const events = result.events;
    expect(events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "planner-synthesize",
    });

    // INITPLAN added the first real plan (alongside the persistent rubric: overlap.test.ts) before
    // the first planner turn, and the rubric was there before the first action ran.
    const init = events.find((e) => e.type === "plan-update" && e.diff !== undefined);
    expect(init).toMatchObject({ iteration: 0, diff: { added: ["T-5", "T-6", "T-7"] } });
    const firstTurn = seqOf(
      events,
      (e) => e.type === "phase" && e.phase === "planning" && e.detail === "iteration 1",
    );
    expect(init!.seq).toBeLessThan(firstTurn);
    expect(seqOf(events, (e) => e.type === "rubric-update" && e.kind === "persistent")).toBeLessThan(
      firstTurn,
    );

    // Only ready-frontier nodes run: the llm node T-7 starts after both of its dependencies ended.
    const start7 = seqOf(events, (e) => e.type === "node-start" && e.nodeId === "T-7");
    expect(start7).toBeGreaterThan(seqOf(events, (e) => e.type === "node-end" && e.nodeId === "T-5"));
    expect(start7).toBeGreaterThan(seqOf(events, (e) => e.type === "node-end" && e.nodeId === "T-6"));
    // Same-depth nodes run concurrently: both started before either ended.
    const firstEnd = Math.min(
      seqOf(events, (e) => e.type === "node-end" && e.nodeId === "T-5"),
      seqOf(events, (e) => e.type === "node-end" && e.nodeId === "T-6"),
    );
    expect(seqOf(events, (e) => e.type === "node-start" && e.nodeId === "T-6")).toBeLessThan(firstEnd);
    expect(seqOf(events, (e) => e.type === "node-start" && e.nodeId === "T-5")).toBeLessThan(firstEnd);
    // In general: every node started only after all its dependencies ended.
    expect(dependencyOrderViolations(events)).toEqual([]);
    // The llm node made no tool call.
    expect(events.some((e) => e.scope === "llm:T-7" && e.type === "tool-start")).toBe(false);

    // The audit trail has assessments, gate verdicts, rubric updates and the stop.
    const assessed = events.flatMap((e) => (e.type === "node-assessed" ? [e.nodeId] : []));
    expect(new Set(assessed)).toEqual(new Set(["T-1", "T-2", "T-3", "T-5", "T-6", "T-7"]));
    expect(
      events.filter((e) => e.type === "gate-verdict").map((e) => e.type === "gate-verdict" && e.verdict),
    ).toEqual(["approve", "approve", "approve"]);
    const rubrics = events.flatMap((e) => (e.type === "rubric-update" ? [e.kind] : []));
    expect(rubrics.filter((k) => k === "persistent")).toHaveLength(1);
    expect(rubrics.filter((k) => k === "ephemeral")).toHaveLength(2);
    expect(rubrics.filter((k) => k === "search")).toHaveLength(8);
    expect(events.some((e) => e.type === "warning")).toBe(false);

    // The outline is fixed: one outline-update, before the loop.
    expect(events.filter((e) => e.type === "outline-update")).toHaveLength(1);
    // Writer prompts carry the persistent rubric and never the ephemeral one.
    for (const role of ["section", "coherence"] as const) {
      for (const system of world.script.systems[role]) {
        expect(system).toContain("PERSISTENT-Coverage");
        expect(system).not.toContain("EPHEMERAL-GAP");
      }
      for (const prompt of world.script.prompts[role]) expect(prompt).not.toContain("EPHEMERAL-GAP");
    }
    const report = result.outcome!.report;
    expect(report.references.length).toBeGreaterThan(0);
    expect(citedNumbers(report.body).every((n) => n >= 1 && n <= report.references.length)).toBe(true);
  });

  it("re-asks an illegal DAG and never executes it", async () => {
    let planner = 0;
    world = await startResearchWorld({
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "graph-planner": 4 },
      override: (role: ScriptRole, body: ChatBody) => {
        if (role !== "graph-planner" || ++planner > 2) return undefined;
        const nodes = parsePlan(userText(body)).map(proposal);
        const cyclic = [
          { id: "T-20", type: "search", title: "A", goal: "goal a", deps: ["T-21"], depth: 1 },
          { id: "T-21", type: "search", title: "B", goal: "goal b", deps: ["T-20"], depth: 1 },
        ];
        return json({
          assessments: [],
          decision: { changePlan: true, reasons: ["new-gap"], explanation: "add two" },
          plan: [...nodes, ...cyclic],
          actions: ["T-20", "T-21"],
          synthesize: false,
        });
      },
    });
    const result = await world.research({ query });
    expect(result.record.status).toBe("completed");
    const warnings = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    expect(warnings).toEqual(["PLAN_ILLEGAL", "PLAN_REJECTED"]);
    expect(
      result.events.some((e) => e.type === "node-start" && (e.nodeId === "T-20" || e.nodeId === "T-21")),
    ).toBe(false);
    // The illegal plan was re-asked once, with its violations.
    expect(world.script.prompts["graph-planner"][1]).toContain("not a legal DAG");
    expect(
      result.events.some(
        (e) => e.type === "warning" && e.code === "PLAN_ILLEGAL" && e.message.includes("CYCLE"),
      ),
    ).toBe(true);
  });

  it("never changes an executed node when the planner rewrites it", async () => {
    let planner = 0;
    world = await startResearchWorld({
      expectCalls: DEFAULT_GRAPH_CALLS,
      override: (role: ScriptRole, body: ChatBody) => {
        if (role !== "graph-planner" || ++planner > 1) return undefined;
        const nodes = parsePlan(userText(body)).map((n) =>
          n.id === "T-1" ? { ...proposal(n), title: "REWRITTEN", goal: "rewritten goal" } : proposal(n),
        );
        return json({
          assessments: [],
          decision: { changePlan: true, reasons: ["failed-or-off-topic"], explanation: "rewrite" },
          plan: nodes,
          actions: [],
          synthesize: false,
        });
      },
    });
    const result = await world.research({ query });
    const updates = result.events.filter((e) => e.type === "plan-update");
    const rewrite = updates.find(
      (e) => e.type === "plan-update" && e.iteration === 1 && e.diff !== undefined,
    );
    expect(rewrite).toMatchObject({ diff: { ignored: ["T-1"] } });
    for (const u of updates) {
      const nodes = (u.type === "plan-update" ? u.graph : null) as { nodes: { id: string; title: string }[] };
      expect(nodes.nodes.find((n) => n.id === "T-1")?.title).not.toBe("REWRITTEN");
    }
  });

  it("bounds the reflection gate's revise rounds, then runs the last revision (Algorithm 2)", async () => {
    world = await startResearchWorld({
      criticRejects: ["T-5"],
      // T-5's first plan, drafted while the critic checked it, is discarded: one inner step more.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, critic: 4, revision: 2, "inner-step": 9 },
    });
    const result = await world.research({ query });
    const events = result.events;
    const verdicts = events.flatMap((e) =>
      e.type === "gate-verdict" && e.nodeId === "T-5" ? [[e.verdict, e.round]] : [],
    );
    expect(verdicts).toEqual([
      ["revise", 1],
      ["revise", 2],
      ["run-revised", 3],
    ]);
    // T-5 ran, in its last revision: the plan after the gate shows it, and its tools searched it.
    const lastVerdict = seqOf(events, (e) => e.type === "gate-verdict" && e.verdict === "run-revised");
    const afterGate = events.find((e) => e.type === "plan-update" && e.seq > lastVerdict);
    expect(
      (afterGate as { graph: { nodes: { id: string; title: string }[] } }).graph.nodes.find(
        (n) => n.id === "T-5",
      ),
    ).toMatchObject({ title: "Revised T-5" });
    const t5Tools = events.filter((e) => e.type === "tool-start" && e.scope === "search:T-5");
    expect(t5Tools.length).toBeGreaterThan(0);
    // The plan with the revision, T-5 running, and the research phase come before its tools.
    expect(afterGate!.seq).toBeLessThan(t5Tools[0]!.seq);
    expect(
      (afterGate as { graph: { nodes: { id: string; status: string }[] } }).graph.nodes
        .filter((n) => n.id === "T-5" || n.id === "T-6")
        .map((n) => n.status),
    ).toEqual(["running", "running"]);
    const researching = events.find(
      (e) => e.type === "phase" && e.phase === "researching" && e.seq > lastVerdict,
    );
    expect(researching).toMatchObject({ detail: "iteration 1: 2 nodes" });
    expect(researching!.seq).toBeLessThan(t5Tools[0]!.seq);
    // No tool ran before the gate's verdict, and none for the discarded plan.
    for (const t of t5Tools) expect(t.seq).toBeGreaterThan(lastVerdict);
    expect(t5Tools[0]).toMatchObject({ tool: "web_search" });
    expect(JSON.stringify(t5Tools[0])).toContain("revised goal of T-5 with metric");
    // The plan drafted for the node as it was is discarded, saying so, and made again.
    const discarded = events.filter((e) => e.type === "warning" && e.code === "DRAFT_DISCARDED");
    expect(discarded).toHaveLength(1);
    expect(discarded[0]).toMatchObject({ scope: "search:T-5" });
    expect(discarded[0]!.seq).toBeGreaterThan(lastVerdict);
    const t5Steps = world.script.prompts["inner-step"].filter((p) => /^Subtask T-5:/m.test(p));
    expect(t5Steps).toHaveLength(3);
    expect(t5Steps[0]).not.toContain("revised goal of T-5");
    expect(t5Steps[1]).toContain("Plan round 1 of");
    expect(t5Steps[1]).toContain("revised goal of T-5 with metric");
    // The discarded call counts: every model call the script answered is in the run's usage.
    expect(result.record.usage!.llmCalls).toBe(Object.values(world.script.counts).reduce((a, b) => a + b, 0));
    // The critic saw the executed nodes with their outcomes.
    expect(world.script.prompts.critic[0]).toMatch(
      /Executed nodes and their outcomes:\nT-1 \[search, depth 1, done\]/,
    );
    expect(world.script.prompts.critic[0]).toContain("result: The subtask found relevant facts");
    expect(result.record.status).toBe("completed");
  });

  it("discards an llm node's note written before the critic revised the node, writes it again and checks the gaps again", async () => {
    world = await startResearchWorld({
      criticRejects: ["T-7"],
      expectCalls: { ...DEFAULT_GRAPH_CALLS, critic: 4, revision: 2, consolidate: 2, "ephemeral-rubric": 3 },
    });
    const result = await world.research({ query });
    expect(result.record.status).toBe("completed");
    const events = result.events;
    const discarded = events.filter((e) => e.type === "warning" && e.code === "DRAFT_DISCARDED");
    expect(discarded).toHaveLength(2);
    expect(discarded[0]).toMatchObject({ scope: "llm:T-7" });
    expect(discarded[1]).toMatchObject({ message: expect.stringMatching(/^iteration 2: the gap check/) });
    const notes = world.script.prompts.consolidate;
    expect(notes[0]).not.toContain("revised goal of T-7");
    expect(notes[1]).toContain("revised goal of T-7 with metric and period");
    const end = events.find((e) => e.type === "node-end" && e.nodeId === "T-7");
    expect(end).toMatchObject({ status: "done" });
    const lastVerdict = events.findLast((e) => e.type === "gate-verdict" && e.nodeId === "T-7")!.seq;
    expect(discarded[0]!.seq).toBeGreaterThan(lastVerdict);
    // The gaps were checked again once the revision's note was done, and the next turn read those.
    const gapChecks = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> =>
        e.type === "llm-start" && e.role === "rubricer",
    );
    expect(gapChecks).toHaveLength(4);
    expect(gapChecks[3]!.seq).toBeGreaterThan(
      events.find((e) => e.type === "node-end" && e.nodeId === "T-7")!.seq,
    );
    expect(discarded[1]!.seq).toBeLessThan(gapChecks[3]!.seq);
    const lastTurn = events.findLast((e) => e.type === "llm-start" && e.role === "planner")!;
    expect(lastTurn.seq).toBeGreaterThan(
      events.find((e) => e.type === "llm-end" && e.callId === gapChecks[3]!.callId)!.seq,
    );
    // The discarded calls count in the run's usage.
    expect(result.record.usage!.llmCalls).toBe(Object.values(world.script.counts).reduce((a, b) => a + b, 0));
  });

  it("keeps inner search agents within their caps: rounds, sub-queries per round, results per query", async () => {
    world = await startResearchWorld({
      innerQueries: 5,
      innerNeverDone: true,
      noGapsFromCycle: 1,
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "graph-planner": 1,
        critic: 1,
        "inner-step": 2 * 2 + 2 * 10,
        reader: 0,
        consolidate: 0,
        "ephemeral-rubric": 1,
      },
    });
    const result = await world.research({ query });
    const events = result.events;
    for (const [scope, cap] of [
      ["search:T-1", 2],
      ["search:T-2", 2],
      ["search:T-5", 10],
      ["search:T-6", 10],
    ] as const) {
      const rounds = events.filter((e) => e.scope === scope && e.type === "rubric-update");
      expect(rounds).toHaveLength(cap);
      const searches = events.filter(
        (e) => e.scope === scope && e.type === "tool-start" && e.tool === "web_search",
      );
      expect(searches).toHaveLength(3 * cap);
      for (const end of events.filter(
        (e) => e.scope === scope && e.type === "tool-end" && e.tool === "web_search",
      ))
        expect(end.type === "tool-end" && (end.resultCount ?? 0)).toBeLessThanOrEqual(3);
    }
  });

  it("stops on the ephemeral rubric's noFurtherRetrieval before the iteration cap", async () => {
    world = await startResearchWorld({
      noGapsFromCycle: 1,
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        "graph-planner": 1,
        critic: 1,
        consolidate: 0,
        "ephemeral-rubric": 1,
      },
    });
    const result = await world.research({ query });
    expect(result.events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "no-gaps",
    });
    expect(result.record.stopReason).toBe("no-gaps");
    // The cross-check the report depended on did not run: it is pruned with the stop's reason,
    // announced, and the report node started only after that.
    const pruned = result.events.filter((e) => e.type === "node-pruned");
    expect(pruned).toMatchObject([
      { nodeId: "T-7", by: "stop", reason: "not run: the ephemeral rubric found no remaining gap" },
    ]);
    const reportStart = result.events.find((e) => e.type === "node-start" && e.nodeType === "report");
    expect(reportStart!.seq).toBeGreaterThan(pruned[0]!.seq);
    expect(result.events.some((e) => e.type === "node-start" && e.nodeId === "T-7")).toBe(false);
  });

  it("every search failing: nodes fail, a report is written, and the run fails with NO_EVIDENCE (nothing gathered is no success)", async () => {
    world = await startResearchWorld({
      searchFailsWith: 500,
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        reader: 0,
        "sub-report": 0,
        consolidate: 0,
        section: 0,
        coherence: [0, 1],
      },
    });
    const result = await world.research({ query });
    expect(result.record).toMatchObject({ status: "failed", stopReason: "error: NO_EVIDENCE" });
    expect(result.error?.message).toMatch(
      /every one of its \d+ tool call\(s\) failed \(web_search: PROVIDER_ERROR/,
    );
    const failed = result.events.flatMap((e) =>
      e.type === "node-end" && e.status === "failed" ? [e.nodeId] : [],
    );
    expect(new Set(failed)).toEqual(new Set(["T-1", "T-2", "T-5", "T-6", "T-7"]));
    // The partial output stays: the report written from nothing, and the events.
    expect(result.outcome!.paths).toHaveLength(1);
    expect(result.events.some((e) => e.type === "report-ready")).toBe(true);
  });

  it("asks clarifying questions through the callback and records assumptions without one", async () => {
    const ambiguous = (body: ChatBody) => {
      const answered = userText(body).includes("The user answered");
      return json({
        topic: answered ? "EU battery prices 2024-2026" : "battery prices",
        objectives: ["prices"],
        constraints: answered ? ["EU only"] : [],
        timeScope: { description: "2024 to 2026" },
        requiredOutputs: [],
        broadQueries: ["battery prices", "battery price outlook"],
        ambiguous: !answered,
        clarifyingQuestions: answered ? [] : ["Which region?", "Which period?"],
        assumptions: answered ? [] : ["worldwide", "last two years"],
      });
    };
    const once = {
      ...DEFAULT_GRAPH_CALLS,
      "graph-planner": 1,
      critic: 1,
      consolidate: 0,
      "ephemeral-rubric": 1,
    };
    const twice = Object.fromEntries(Object.entries(once).map(([r, n]) => [r, 2 * n]));
    world = await startResearchWorld({
      noGapsFromCycle: 1,
      override: (role, body) => (role === "router" ? ambiguous(body) : undefined),
      // The second run reads the same pages for the same goals: the page cache answers them.
      expectCalls: { ...twice, router: 3, reader: once.reader },
    });
    const asked: string[][] = [];
    const interactive = await world.research(
      { query: "battery prices?" },
      {
        clarify: async (q) => {
          asked.push(q);
          return ["the EU", "2024-2026"];
        },
      },
    );
    expect(asked).toEqual([["Which region?", "Which period?"]]);
    expect(world.script.counts.router).toBe(2);
    expect(interactive.events.find((e) => e.type === "task-framed")).toMatchObject({
      spec: { topic: "EU battery prices 2024-2026", constraints: ["EU only"] },
      assumptions: [],
    });

    const batch = await world.research({ query: "battery prices?" });
    expect(batch.events.find((e) => e.type === "task-framed")).toMatchObject({
      assumptions: ["worldwide", "last two years"],
    });
  });
});
