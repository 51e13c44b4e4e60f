import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_GRAPH_CALLS,
  ONE_CYCLE_GRAPH_CALLS,
  parsePlan,
  proposal,
  SEARCH_FAILING_GRAPH_CALLS,
} from "../../../test/research/graph-answers.ts";
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
  it("runs the protocol: router, broad searches, fixed outline, INITPLAN (rubric, plan, first actions), planner loop, gate, writer", async () => {
    world = await startResearchWorld({ latencyMs: 30, expectCalls: DEFAULT_GRAPH_CALLS });
    const result = await world.research({ query });
    expect(result.prepared.strategy).toBe("graph");
    // The run reports the stop its decision recorded.
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    const events = result.events;
    expect(events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "planner-synthesize",
    });

    // The broad searches are direct tool calls: no inner agent plans or summarises them; their
    // only model calls are the page readers, and their result lists what they found and read.
    for (const id of ["T-1", "T-2"]) {
      const calls = events.filter((e) => e.scope === `search:${id}` && e.type === "llm-start");
      expect(calls.map((e) => e.type === "llm-start" && e.role)).toEqual(["reader"]);
      const tools = events.flatMap((e) =>
        e.scope === `search:${id}` && e.type === "tool-start" ? [e.tool] : [],
      );
      expect(tools.filter((t) => t === "web_search")).toHaveLength(1);
    }
    const afterSurvey = events.find(
      (e) =>
        e.type === "plan-update" && e.seq > seqOf(events, (x) => x.type === "node-end" && x.nodeId === "T-2"),
    ) as unknown as {
      graph: { nodes: { id: string; result?: { summary: string } }[] };
    };
    expect(afterSurvey.graph.nodes.find((n) => n.id === "T-1")!.result!.summary).toMatch(
      /^Broad search "How is topic adoption changing\?" — found .+ — read .+\.$/,
    );

    // INITPLAN added the first real plan and wrote the persistent rubric in one call (no separate
    // rubric call), and chose the first actions: the first cycle runs them with no planner turn of
    // its own; the first planner turn comes once that batch has ended.
    const init = events.find((e) => e.type === "plan-update" && e.diff !== undefined);
    expect(init).toMatchObject({ iteration: 0, diff: { added: ["T-5", "T-6", "T-7"] } });
    const persistent = seqOf(events, (e) => e.type === "rubric-update" && e.kind === "persistent");
    const firstAction = seqOf(events, (e) => e.type === "node-start" && e.nodeId === "T-5");
    expect(init!.seq).toBeLessThan(firstAction);
    expect(persistent).toBeGreaterThan(0);
    expect(events.find((e) => e.seq === persistent)).toMatchObject({
      rubric: expect.stringContaining("PERSISTENT-Coverage"),
    });
    expect(persistent).toBeLessThan(firstAction);
    const plannings = events.flatMap((e) => (e.type === "phase" && e.phase === "planning" ? [e.detail] : []));
    expect(plannings).toEqual(["initial plan", "iteration 2", "iteration 3"]);
    expect(events.find((e) => e.type === "phase" && e.phase === "researching")).toMatchObject({
      detail: "iteration 1: 2 nodes",
    });
    const plannerCalls = events.filter((e) => e.type === "llm-start" && e.role === "planner");
    expect(plannerCalls).toHaveLength(3);
    for (const id of ["T-5", "T-6"])
      expect(plannerCalls[1]!.seq).toBeGreaterThan(
        seqOf(events, (e) => e.type === "node-end" && e.nodeId === id),
      );
    expect(events.some((e) => e.type === "llm-start" && e.role === "rubricer" && e.seq < firstAction)).toBe(
      false,
    );
    // The rubric INITPLAN wrote conditions the planner's turns and the inner agents.
    expect(world.script.prompts["init-plan"][0]).not.toContain("PERSISTENT-");
    for (const prompt of world.script.prompts["graph-planner"])
      expect(prompt).toContain("PERSISTENT-Coverage");
    for (const prompt of world.script.prompts["inner-step"]) expect(prompt).toContain("PERSISTENT-Coverage");

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
    expect(rubrics.filter((k) => k === "search")).toHaveLength(4);
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
      // The first planner turn (after INITPLAN's batch) is asked twice, then the default turn synthesizes.
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "graph-planner": 3 },
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
    // The rejection left the plan in force: its ready frontier (the cross-check) ran next.
    const rejected = result.events.find((e) => e.type === "warning" && e.code === "PLAN_REJECTED")!.seq;
    expect(result.events.find((e) => e.type === "node-start" && e.seq > rejected)).toMatchObject({
      nodeId: "T-7",
    });
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
          // The pending work runs (an empty choice would end the loop).
          actions: parsePlan(userText(body))
            .filter((n) => n.status === "pending" && (n.type === "search" || n.type === "llm"))
            .map((n) => n.id),
          synthesize: false,
        });
      },
    });
    const result = await world.research({ query });
    const updates = result.events.filter((e) => e.type === "plan-update");
    // The first planner turn is iteration 2 (INITPLAN's actions ran in iteration 1), when T-1 has run.
    const rewrite = updates.find(
      (e) => e.type === "plan-update" && e.iteration === 2 && e.diff !== undefined,
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
      expectCalls: { ...DEFAULT_GRAPH_CALLS, critic: 4, revision: 2, "inner-step": 5 },
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
    // The plan after the gate shows T-5 running or done and T-6, approved in the first round,
    // too (each has run since it was cleared).
    const statusOf = (id: string) =>
      (afterGate as { graph: { nodes: { id: string; status: string }[] } }).graph.nodes.find(
        (n) => n.id === id,
      )?.status;
    expect(["running", "done"]).toContain(statusOf("T-5"));
    expect(["running", "done"]).toContain(statusOf("T-6"));
    const researching = events.find(
      (e) => e.type === "phase" && e.phase === "researching" && e.seq > lastVerdict,
    );
    expect(researching).toMatchObject({ detail: "iteration 1: 2 nodes" });
    // No tool ran before T-5's last revision was answered (the rounds were then spent: the
    // critic's last verdict could not send it back), and none for the discarded plan.
    const revisions = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> =>
        e.type === "llm-start" && e.role === "planner" && e.scope === "gate",
    );
    expect(revisions).toHaveLength(2);
    const lastRevised = seqOf(events, (e) => e.type === "llm-end" && e.callId === revisions[1]!.callId);
    for (const t of t5Tools) expect(t.seq).toBeGreaterThan(lastRevised);
    expect(t5Tools[0]).toMatchObject({ tool: "web_search" });
    expect(JSON.stringify(t5Tools[0])).toContain("revised goal of T-5 with metric");
    // The plan drafted for the node as it was is discarded, saying so, and made again.
    const discarded = events.filter((e) => e.type === "warning" && e.code === "DRAFT_DISCARDED");
    expect(discarded).toHaveLength(1);
    expect(discarded[0]).toMatchObject({ scope: "search:T-5" });
    expect(discarded[0]!.seq).toBeGreaterThan(lastRevised);
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
    expect(world.script.prompts.critic[0]).toContain(
      'result: Broad search "How is topic adoption changing?" — found',
    );
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
    // Discarded once its last revision was answered (its last verdict cannot send it back).
    const revisions = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> =>
        e.type === "llm-start" && e.role === "planner" && e.scope === "gate",
    );
    expect(revisions).toHaveLength(2);
    expect(discarded[0]!.seq).toBeGreaterThan(
      seqOf(events, (e) => e.type === "llm-end" && e.callId === revisions[1]!.callId),
    );
    // The gaps were checked again once the revision's note was done, and the next turn read those.
    const gapChecks = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> =>
        e.type === "llm-start" && e.role === "rubricer",
    );
    // Two gap checks (iterations 1 and 2) and the one made again; no persistent-rubric call.
    expect(gapChecks).toHaveLength(3);
    expect(gapChecks[2]!.seq).toBeGreaterThan(
      events.find((e) => e.type === "node-end" && e.nodeId === "T-7")!.seq,
    );
    expect(discarded[1]!.seq).toBeLessThan(gapChecks[2]!.seq);
    const lastTurn = events.findLast((e) => e.type === "llm-start" && e.role === "planner")!;
    expect(lastTurn.seq).toBeGreaterThan(
      events.find((e) => e.type === "llm-end" && e.callId === gapChecks[2]!.callId)!.seq,
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
        // INITPLAN's batch is the only cycle: no planner turn, one gate, one gap check.
        "graph-planner": 0,
        critic: 1,
        "inner-step": 2 * 10,
        // The broad searches read one page each; the inner agents never ask to read.
        reader: 2,
        consolidate: 0,
        "ephemeral-rubric": 1,
      },
    });
    const result = await world.research({ query });
    const events = result.events;
    const inScope = (scope: string, type: string, tool: string) =>
      events.filter((e) => e.scope === scope && e.type === type && "tool" in e && e.tool === tool);
    for (const [scope, cap] of [
      ["search:T-5", 10],
      ["search:T-6", 10],
    ] as const) {
      const rounds = events.filter((e) => e.scope === scope && e.type === "rubric-update");
      expect(rounds).toHaveLength(cap);
      expect(inScope(scope, "tool-start", "web_search")).toHaveLength(3 * cap);
      for (const end of inScope(scope, "tool-end", "web_search"))
        expect(end.type === "tool-end" && (end.resultCount ?? 0)).toBeLessThanOrEqual(3);
    }
    // A broad search has no inner agent: one search per tool, at most three results, one page read.
    for (const scope of ["search:T-1", "search:T-2"]) {
      expect(events.some((e) => e.scope === scope && e.type === "rubric-update")).toBe(false);
      expect(inScope(scope, "tool-start", "web_search")).toHaveLength(1);
      for (const end of inScope(scope, "tool-end", "web_search"))
        expect(end.type === "tool-end" && (end.resultCount ?? 0)).toBeLessThanOrEqual(3);
      expect(events.filter((e) => e.scope === scope && e.type === "llm-start")).toHaveLength(1);
    }
  });

  it("stops on the ephemeral rubric's noFurtherRetrieval before the iteration cap", async () => {
    world = await startResearchWorld({
      noGapsFromCycle: 1,
      // The first cycle (INITPLAN's actions, no planner turn) finds no gap left.
      expectCalls: {
        ...ONE_CYCLE_GRAPH_CALLS,
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
      expectCalls: SEARCH_FAILING_GRAPH_CALLS,
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
      ...ONE_CYCLE_GRAPH_CALLS,
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
