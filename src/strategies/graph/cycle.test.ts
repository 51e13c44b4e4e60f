/**
 * One planner turn (planCycle) and the gap refresh, with a scripted `structured` call: every
 * answer the test queues must be asked for, and no other call may be made.
 */

import { afterEach, describe, expect, it } from "vitest";
import { exceeded } from "../../core/budget.ts";
import { DossierError } from "../../core/errors.ts";
import type { EventInput } from "../../core/events.ts";
import { EvidenceRegistry } from "../../core/evidence-registry.ts";
import { createOutline } from "../../core/outline.ts";
import {
  type PlanGraph,
  type PlanNode,
  type PlanNodeProposal,
  readyFrontier,
} from "../../core/plan-graph.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { type CycleInput, planCycle, refreshGaps } from "./cycle.ts";

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
const proposal = (n: PlanNode): PlanNodeProposal => {
  const { status: _s, result: _r, ...rest } = n;
  return rest;
};

const planned: PlannedOutline = {
  title: "T",
  outline: createOutline([
    { title: "Costs", plan: "cost figures" },
    { title: "Adoption", plan: "adoption figures" },
  ]),
  evidenceHints: {},
};

/** T-1 done, T-2 failed, T-3 pending (depth 2), report T-4. */
const graph: PlanGraph = {
  nodes: [
    node("T-1", 1, [], { status: "done", result: { summary: "s1", evidenceIds: ["E1"] } }),
    node("T-2", 1, [], { status: "failed", result: { summary: "s2", evidenceIds: [] } }),
    node("T-3", 2, ["T-1"]),
    node("T-4", 3, ["T-1", "T-2", "T-3"], { type: "report" }),
  ],
};

const scripts: (() => number)[] = [];
afterEach(() => {
  const left = scripts.splice(0).reduce((sum, count) => sum + count(), 0);
  if (left > 0) throw new Error(`${left} scripted answer(s) never asked for`);
});

/** A context whose `structured` answers from `answers` in order (an Error is thrown). */
function scripted(answers: unknown[]) {
  const queue = [...answers];
  const events: EventInput[] = [];
  const prompts: string[] = [];
  const ctx = {
    query: "How is adoption changing?",
    currentDate: "2026-11-22",
    evidence: new EvidenceRegistry(),
    emit: (event: EventInput) => {
      events.push(event);
      return event;
    },
    structured: async (request: { prompt: string; schema: { parse(v: unknown): unknown } }) => {
      prompts.push(request.prompt);
      if (queue.length === 0) throw new Error(`unexpected call:\n${request.prompt}`);
      const next = queue.shift();
      if (next instanceof Error) throw next;
      return { value: request.schema.parse(next) };
    },
  } as unknown as RunContext;
  scripts.push(() => queue.length);
  return { ctx, events, prompts };
}

function input(extra: Partial<CycleInput> = {}): CycleInput {
  return {
    graph,
    spec: "SPEC",
    planned,
    persistent: "RUBRIC",
    ephemeral: null,
    language: "en",
    maxDepth: 5,
    iteration: 3,
    assessed: new Set<string>(),
    ...extra,
  };
}

const keep = (extra: Record<string, unknown> = {}) => ({
  assessments: [],
  decision: { changePlan: false, reasons: [], explanation: "stable" },
  plan: graph.nodes.map(proposal),
  actions: ["T-3"],
  synthesize: false,
  ...extra,
});

/** A legal revision: T-3 dropped, T-5 added, the report rewired. */
const revised = [
  proposal(graph.nodes[0]!),
  proposal(graph.nodes[1]!),
  proposal(node("T-5", 2, ["T-1"], { sections: ["2"] })),
  proposal(node("T-4", 3, ["T-1", "T-2", "T-5"], { type: "report" })),
];
const change = (plan: PlanNodeProposal[], extra: Record<string, unknown> = {}) => ({
  assessments: [],
  decision: { changePlan: true, reasons: ["new-gap", "conflict"], explanation: "swap T-3 for T-5" },
  plan,
  actions: ["T-5"],
  synthesize: false,
  ...extra,
});
/** Two new nodes that depend on each other: illegal, and not repairable into a legal plan. */
const cyclic = [
  ...graph.nodes.map(proposal),
  proposal(node("T-6", 2, ["T-7"])),
  proposal(node("T-7", 2, ["T-6"])),
];

const warnings = (events: EventInput[]) => events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
const decisions = (events: EventInput[]) => events.flatMap((e) => (e.type === "decision" ? [e.reason] : []));

/** The ready frontier's ids: what runs when the planner could not decide. */
const readyIds = (g: PlanGraph) =>
  readyFrontier(g)
    .filter((n) => n.type !== "report" && n.type !== "outline")
    .map((n) => n.id);

describe("planCycle: a planner that fails", () => {
  it("propagates cancellation", async () => {
    const { ctx } = scripted([new DossierError("CANCELLED", "stop", { details: { reason: "user" } })]);
    await expect(planCycle(ctx, input())).rejects.toMatchObject({ code: "CANCELLED" });
  });

  it("stops on a budget limit, naming it", async () => {
    const { ctx, events } = scripted([exceeded("tokens")]);
    expect(await planCycle(ctx, input())).toEqual({ stop: "budget:tokens" });
    expect(events).toEqual([]);
  });

  it("keeps the plan and runs the ready frontier on any other failure, saying why", async () => {
    const { ctx, events } = scripted([new DossierError("STRUCTURED_OUTPUT_FAILED", "bad json")]);
    expect(await planCycle(ctx, input())).toEqual({ graph, actions: readyIds(graph), synthesize: false });
    expect(events).toEqual([
      {
        type: "warning",
        code: "PLANNER_FAILED",
        message: "planner failed (STRUCTURED_OUTPUT_FAILED); the plan is kept and the ready frontier runs",
      },
    ]);
    const plain = scripted([new Error("socket")]);
    await planCycle(plain.ctx, input());
    expect(plain.events[0]).toMatchObject({ message: expect.stringContaining("planner failed (error)") });
  });
  it("never runs the report or the outline node as an action when the planner fails", async () => {
    // T-3 done: the report is ready, and so is an outline node; only research nodes may run.
    const ready: PlanGraph = {
      nodes: [
        ...graph.nodes.slice(0, 2),
        node("T-3", 2, ["T-1"], { status: "done", result: { summary: "s3", evidenceIds: [] } }),
        node("T-4", 3, ["T-1", "T-2", "T-3"], { type: "report" }),
        node("T-6", 1, [], { type: "outline" }),
        node("T-7", 1, []),
      ],
    };
    expect(readyFrontier(ready).map((n) => n.id)).toEqual(expect.arrayContaining(["T-4", "T-6", "T-7"]));
    const { ctx } = scripted([new DossierError("STRUCTURED_OUTPUT_FAILED", "bad json")]);
    expect(await planCycle(ctx, input({ graph: ready }))).toEqual({
      graph: ready,
      actions: ["T-7"],
      synthesize: false,
    });
  });
});

describe("planCycle: assessments and a kept plan", () => {
  it("records each executed node's first assessment only, with the iteration", async () => {
    const assessed = new Set(["T-2"]);
    const { ctx, events, prompts } = scripted([
      keep({
        assessments: [
          { nodeId: "T-1", verdict: "HIGH", reason: "solid figures" },
          { nodeId: "T-2", verdict: "INSUFFICIENT", reason: "assessed before" },
          { nodeId: "T-3", verdict: "ADEQUATE", reason: "not executed" },
          { nodeId: "T-1", verdict: "ADEQUATE", reason: "said twice" },
        ],
      }),
    ]);
    await planCycle(ctx, input({ assessed }));
    expect(events.filter((e) => e.type === "node-assessed")).toEqual([
      { type: "node-assessed", nodeId: "T-1", verdict: "HIGH", reason: "solid figures", iteration: 3 },
    ]);
    expect([...assessed].sort()).toEqual(["T-1", "T-2"]);
    expect(prompts[0]).toContain("Executed nodes to assess now: T-1");
    expect(prompts[0]).toContain("Current plan (iteration 3):");
    expect(prompts[0]).toContain("(none yet)");
    expect(prompts[0]).not.toContain("not a legal DAG");
  });

  it("records the first assessment of a failed node as of a done one", async () => {
    const { ctx, events } = scripted([
      keep({ assessments: [{ nodeId: "T-2", verdict: "INSUFFICIENT", reason: "nothing found" }] }),
    ]);
    await planCycle(ctx, input());
    expect(events.filter((e) => e.type === "node-assessed")).toMatchObject([
      { nodeId: "T-2", verdict: "INSUFFICIENT" },
    ]);
  });

  it("keeps the plan when no change is asked for, passing the actions and synthesize on", async () => {
    const { ctx, events } = scripted([keep({ actions: ["T-3", "T-9"], synthesize: true })]);
    const step = await planCycle(ctx, input());
    expect(step).toEqual({ graph, actions: ["T-3", "T-9"], synthesize: true });
    expect("graph" in step && step.graph).toBe(graph);
    expect(events).toEqual([{ type: "decision", decision: "continue", reason: "plan kept: stable" }]);
  });

  it("keeps the plan when a change names no allowed reason, whatever plan came with it", async () => {
    const { ctx, events } = scripted([
      change(revised, { decision: { changePlan: true, reasons: [], explanation: "why not" } }),
    ]);
    const step = await planCycle(ctx, input());
    expect(step).toEqual({ graph, actions: ["T-5"], synthesize: false });
    expect(decisions(events)).toEqual(["plan kept: why not"]);
  });
});

describe("planCycle: a changed plan", () => {
  it("merges a legal revision, records the planner's prunes and announces the plan", async () => {
    const { ctx, events } = scripted([change(revised, { synthesize: true })]);
    const step = await planCycle(ctx, input());
    if ("stop" in step) throw new Error("unexpected stop");
    expect(step.actions).toEqual(["T-5"]);
    expect(step.synthesize).toBe(true);
    expect(step.graph.nodes.map((n) => [n.id, n.status])).toEqual([
      ["T-1", "done"],
      ["T-2", "failed"],
      ["T-3", "pruned"],
      ["T-4", "pending"],
      ["T-5", "pending"],
    ]);
    const reason = "pruned by the planner (new-gap, conflict): swap T-3 for T-5";
    expect(step.graph.nodes[2]!.result).toEqual({ summary: reason, evidenceIds: [], prunedBy: "planner" });
    expect(events).toEqual([
      {
        type: "decision",
        decision: "continue",
        reason: "plan changed (new-gap, conflict): swap T-3 for T-5",
      },
      { type: "node-pruned", nodeId: "T-3", reason, by: "planner" },
      {
        type: "plan-update",
        iteration: 3,
        graph: step.graph,
        diff: { added: ["T-5"], pruned: ["T-3"], rewired: ["T-4"], updated: [], ignored: [] },
      },
    ]);
  });

  it("re-asks an illegal revision with its violations and takes a legal second answer", async () => {
    const { ctx, events, prompts } = scripted([change(cyclic), change(revised, { actions: ["T-5", "T-1"] })]);
    const step = await planCycle(ctx, input({ maxDepth: 4 }));
    if ("stop" in step) throw new Error("unexpected stop");
    expect(step.actions).toEqual(["T-5", "T-1"]);
    expect(step.graph.nodes.map((n) => n.id)).toEqual(["T-1", "T-2", "T-3", "T-4", "T-5"]);
    const warning = events.find((e) => e.type === "warning");
    expect(warning).toEqual({
      type: "warning",
      code: "PLAN_ILLEGAL",
      message:
        "plan re-asked: DEP_DEPTH (T-6): Node T-6 (depth 2) depends on T-7 (depth 2); a dependency must be shallower; " +
        "DEP_DEPTH (T-7): Node T-7 (depth 2) depends on T-6 (depth 2); a dependency must be shallower; " +
        "CYCLE (T-6): Nodes T-6, T-7 depend on each other in a cycle; " +
        "REPORT_DEPS (T-4): Report node T-4 does not depend on live node T-6; " +
        "REPORT_DEPS (T-4): Report node T-4 does not depend on live node T-7",
    });
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain(
      "Your previous plan was not a legal DAG. Fix these problems:\n- DEP_DEPTH (T-6): ",
    );
    expect(warnings(events)).toEqual(["PLAN_ILLEGAL"]);
  });

  it("repairs without re-asking a plan that breaks only the depth rule and the report's dependencies", async () => {
    // T-5 depends on T-3 (depth 2) at depth 2, and the report does not depend on it.
    const misnumbered = [
      ...graph.nodes.slice(0, 3).map(proposal),
      proposal(node("T-5", 2, ["T-3"], { sections: ["2"] })),
      proposal(node("T-4", 3, ["T-1", "T-2", "T-3"], { type: "report" })),
    ];
    const { ctx, events, prompts } = scripted([change(misnumbered)]);
    const step = await planCycle(ctx, input());
    if ("stop" in step) throw new Error("unexpected stop");
    expect(prompts).toHaveLength(1);
    expect(warnings(events)).toEqual(["PLAN_REPAIRED"]);
    expect(events.find((e) => e.type === "warning")).toMatchObject({
      message: expect.stringMatching(/^plan repaired without re-asking: DEP_DEPTH, REPORT_DEPS; /),
    });
    // Every node and dependency the planner proposed is kept; only the numbers and the report move.
    expect(step.graph.nodes.map((n) => [n.id, n.depth, n.deps])).toEqual([
      ["T-1", 1, []],
      ["T-2", 1, []],
      ["T-3", 2, ["T-1"]],
      ["T-4", 4, ["T-1", "T-2", "T-3", "T-5"]],
      ["T-5", 3, ["T-3"]],
    ]);
    expect(step).toMatchObject({ actions: ["T-5"], synthesize: false });
    expect(decisions(events)).toEqual(["plan changed (new-gap, conflict): swap T-3 for T-5"]);
  });

  it("adds a dropped report node without re-asking; a second report node is re-asked", async () => {
    const noReport = [...revised.slice(0, 3)];
    const dropped = scripted([change(noReport)]);
    const step = await planCycle(dropped.ctx, input());
    if ("stop" in step) throw new Error("unexpected stop");
    expect(dropped.prompts).toHaveLength(1);
    expect(warnings(dropped.events)).toEqual(["PLAN_REPAIRED"]);
    expect(step.graph.nodes.filter((n) => n.type === "report" && n.status !== "pruned")).toMatchObject([
      { deps: ["T-1", "T-2", "T-5"], depth: 3 },
    ]);
    const twoReports = [...revised, proposal(node("T-6", 3, ["T-1", "T-2", "T-5"], { type: "report" }))];
    const second = scripted([change(twoReports), change(revised)]);
    await planCycle(second.ctx, input());
    expect(second.prompts).toHaveLength(2);
    expect(warnings(second.events)).toEqual(["PLAN_ILLEGAL"]);
  });

  it("re-asks a plan whose repair would drop a dependency or break the depth limit", async () => {
    // T-5 depends on a node that does not exist: repairing would drop what the planner asked for.
    const missing = [...revised.slice(0, 2), proposal(node("T-5", 1, ["T-1", "T-9"])), revised[3]!];
    const first = scripted([change(missing), change(revised)]);
    await planCycle(first.ctx, input());
    expect(first.prompts).toHaveLength(2);
    expect(warnings(first.events)).toEqual(["PLAN_ILLEGAL"]);
    // At a limit of 3 the repaired report would sit at depth 3, no deeper than T-5.
    const deep = [
      ...graph.nodes.slice(0, 3).map(proposal),
      proposal(node("T-5", 2, ["T-3"])),
      proposal(node("T-4", 3, ["T-1", "T-2", "T-3", "T-5"], { type: "report" })),
    ];
    const second = scripted([change(deep), change(revised)]);
    await planCycle(second.ctx, input({ maxDepth: 3 }));
    expect(second.prompts).toHaveLength(2);
    expect(warnings(second.events)).toEqual(["PLAN_ILLEGAL"]);
  });

  it("names a violation without a node plainly", async () => {
    // No report node and a self-dependency (which is re-asked): the report's violation has no node.
    const noReport = [...graph.nodes.slice(0, 2).map(proposal), proposal(node("T-3", 2, ["T-3"]))];
    const { ctx, events } = scripted([change(noReport), change(revised)]);
    await planCycle(ctx, input());
    expect(events.find((e) => e.type === "warning")).toMatchObject({
      message:
        "plan re-asked: SELF_DEP (T-3): Node T-3 depends on itself; REPORT_COUNT: The plan has no live report node; it needs exactly one",
    });
  });

  it("repairs a second illegal answer when it can, under the second answer's reasons", async () => {
    // The report no longer depends on the new node: repair rewires it.
    const stale = [...revised.slice(0, 3), proposal(node("T-4", 3, ["T-1", "T-2"], { type: "report" }))];
    const second = change(stale, {
      decision: { changePlan: true, reasons: ["uncovered-sections"], explanation: "cover section 2" },
      actions: ["T-5"],
      synthesize: true,
    });
    const { ctx, events } = scripted([change(cyclic), second]);
    const step = await planCycle(ctx, input());
    if ("stop" in step) throw new Error("unexpected stop");
    expect(warnings(events)).toEqual(["PLAN_ILLEGAL", "PLAN_REPAIRED"]);
    expect(events.find((e) => e.type === "warning" && e.code === "PLAN_REPAIRED")).toMatchObject({
      message: "plan repaired: stale dependencies and the report node fixed",
    });
    expect(step.graph.nodes.find((n) => n.id === "T-4")!.deps).toEqual(["T-1", "T-2", "T-5"]);
    expect(step).toMatchObject({ actions: ["T-5"], synthesize: true });
    expect(decisions(events)).toEqual(["plan changed (uncovered-sections): cover section 2"]);
    expect(events.find((e) => e.type === "plan-update")).toMatchObject({
      diff: { added: ["T-5"], pruned: ["T-3"] },
    });
    expect(step.graph.nodes[2]!.result).toMatchObject({ prunedBy: "planner" });
  });

  it("checks a repaired plan against the run's depth limit, not the default one", async () => {
    // A limit of 7 allows a node at depth 6; the repaired report goes to depth 7.
    const deep = [
      ...revised.slice(0, 2),
      proposal(node("T-5", 6, ["T-1"], { sections: ["2"] })),
      proposal(node("T-4", 3, ["T-1", "T-2"], { type: "report" })),
    ];
    const { ctx, events } = scripted([change(cyclic), change(deep)]);
    const step = await planCycle(ctx, input({ maxDepth: 7 }));
    expect(warnings(events)).toEqual(["PLAN_ILLEGAL", "PLAN_REPAIRED"]);
    if ("stop" in step) throw new Error("unexpected stop");
    expect(step.graph.nodes.find((n) => n.id === "T-4")).toMatchObject({
      depth: 7,
      deps: ["T-1", "T-2", "T-5"],
    });
  });

  it("rejects a second illegal answer it cannot repair: the current plan stays, nothing chosen", async () => {
    const { ctx, events } = scripted([
      change(cyclic),
      change(cyclic, { actions: ["T-6"], synthesize: true }),
    ]);
    expect(await planCycle(ctx, input())).toEqual({ graph, actions: readyIds(graph), synthesize: false });
    expect(warnings(events)).toEqual(["PLAN_ILLEGAL", "PLAN_REJECTED"]);
    expect(events.at(-1)).toEqual({
      type: "warning",
      code: "PLAN_REJECTED",
      message: "plan rejected: DEP_DEPTH, CYCLE; the current plan stays in force",
    });
    expect(events.some((e) => e.type === "plan-update" || e.type === "decision")).toBe(false);
  });

  it("treats a failure of the re-asked planner like a failure of the first", async () => {
    const cancelled = scripted([change(cyclic), new DossierError("CANCELLED", "stop")]);
    await expect(planCycle(cancelled.ctx, input())).rejects.toMatchObject({ code: "CANCELLED" });
    const budget = scripted([change(cyclic), exceeded("cost")]);
    expect(await planCycle(budget.ctx, input())).toEqual({ stop: "budget:cost" });
    const failed = scripted([change(cyclic), new DossierError("TIMEOUT", "slow")]);
    expect(await planCycle(failed.ctx, input())).toEqual({
      graph,
      actions: readyIds(graph),
      synthesize: false,
    });
    expect(failed.events.at(-1)).toEqual({
      type: "warning",
      code: "PLANNER_FAILED",
      message: "re-asked planner failed (TIMEOUT); the plan is kept and the ready frontier runs",
    });
  });
});

describe("refreshGaps", () => {
  const results = new Map([["T-1", { summary: "s1", evidenceIds: ["E1", "E2"] }]]);
  const sectioned: PlanGraph = {
    nodes: [
      node("T-1", 1, [], { status: "done", sections: ["1"] }),
      node("T-3", 1, [], { status: "done", sections: ["1"] }),
      node("T-2", 1, [], { sections: ["2"] }),
    ],
  };

  function withEvidence(ctx: RunContext) {
    const s = ctx.evidence.addSource({
      kind: "web",
      url: "https://a.example",
      title: "A",
      fetchedAt: "t",
    }).source;
    const by = { tool: "read_page", callId: "c" };
    ctx.evidence.addEvidence({ sourceId: s.id, text: "Costs fell by a third in 2025.", retrievedBy: by });
    ctx.evidence.addEvidence({ sourceId: s.id, text: "Adoption doubled across regions.", retrievedBy: by });
  }

  it("asks the rubricer with the evidence by section and returns its gaps", async () => {
    const rubric = { gaps: [], noFurtherRetrieval: true };
    const { ctx, prompts, events } = scripted([rubric]);
    withEvidence(ctx);
    expect(
      await refreshGaps(ctx, { graph: sectioned, planned, spec: "SPEC", results, language: "en" }),
    ).toEqual(rubric);
    expect(prompts[0]).toContain("<evidence-by-section>\nSection 1 Costs — served by T-1 (2 evidence)");
    expect(events).toEqual([]);
    // Its budget per section reaches what it reads: 20 characters leave each section one passage, cut.
    const small = scripted([rubric]);
    withEvidence(small.ctx);
    await refreshGaps(small.ctx, {
      graph: sectioned,
      planned,
      spec: "SPEC",
      results,
      language: "en",
      sectionChars: 20,
    });
    const lines = small.prompts[0]!.match(/^\[E\d+\] .*$/gm) ?? [];
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^\[E\d+\] .{1,20}…$/);
  });

  it("returns no gaps on a rubricer failure, and propagates cancellation", async () => {
    const failed = scripted([new DossierError("STRUCTURED_OUTPUT_FAILED", "x")]);
    expect(await refreshGaps(failed.ctx, { graph, planned, spec: "S", results, language: "en" })).toBeNull();
    expect(failed.events).toEqual([
      {
        type: "warning",
        code: "GAPS_FALLBACK",
        message: "ephemeral rubric failed (STRUCTURED_OUTPUT_FAILED); no gaps this cycle, research goes on",
      },
    ]);
    const cancelled = scripted([new DossierError("CANCELLED", "stop")]);
    await expect(
      refreshGaps(cancelled.ctx, { graph, planned, spec: "S", results, language: "en" }),
    ).rejects.toMatchObject({
      code: "CANCELLED",
    });
  });
});
