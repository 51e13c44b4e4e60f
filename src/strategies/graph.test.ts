import { afterEach, describe, expect, it } from "vitest";
import { parsePlan, proposal } from "../../test/research/graph-answers.ts";
import type { ChatBody, ScriptRole } from "../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { citedNumbers } from "../core/citations.ts";
import type { DossierEvent } from "../core/events.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
const seqOf = (events: DossierEvent[], pred: (e: DossierEvent) => boolean) => events.find(pred)?.seq ?? -1;
const userText = (body: ChatBody) =>
  body.messages
    .filter((m) => m.role !== "system")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("")))
    .join("\n");

describe("graph strategy", () => {
  it("runs the protocol: router, coarse survey, fixed outline, rubrics, planner loop, gate, writer", async () => {
    world = await startResearchWorld({ latencyMs: 30 });
    const result = await world.research({ query });
    expect(result.prepared.strategy).toBe("graph");
    expect(result.record).toMatchObject({ status: "completed", stopReason: "completed" });
    const events = result.events;
    const c = world.script.counts;
    expect(c.router).toBe(1);
    expect(c.outline).toBe(1);
    expect(c["persistent-rubric"]).toBe(1);
    expect(c["graph-planner"]).toBe(3);
    expect(c.critic).toBe(2);
    expect(c.consolidate).toBe(1);
    expect(world.script.unexpected).toEqual([]);
    expect(events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "planner-synthesize",
    });

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
    const finalGraph = events.filter((e) => e.type === "plan-update").at(-1) as
      | { graph: { nodes: { id: string; deps: string[] }[] } }
      | undefined;
    for (const node of finalGraph!.graph.nodes) {
      const started = seqOf(events, (e) => e.type === "node-start" && e.nodeId === node.id);
      if (started < 0) continue;
      for (const dep of node.deps)
        expect(seqOf(events, (e) => e.type === "node-end" && e.nodeId === dep)).toBeLessThan(started);
    }
    // The llm node made no tool call.
    expect(events.some((e) => e.scope === "llm:T-7" && e.type === "tool-start")).toBe(false);

    // The audit trail has assessments, plan changes with a diff, gate verdicts, rubric updates and the stop.
    const assessed = events
      .filter((e) => e.type === "node-assessed")
      .map((e) => (e.type === "node-assessed" ? e.nodeId : ""));
    expect(new Set(assessed)).toEqual(new Set(["T-1", "T-2", "T-3", "T-5", "T-6", "T-7"]));
    const changed = events.find((e) => e.type === "plan-update" && e.diff !== undefined);
    expect(changed).toMatchObject({ diff: { added: ["T-5", "T-6", "T-7"] } });
    expect(events.filter((e) => e.type === "gate-verdict").length).toBe(3);
    const rubrics = events
      .filter((e) => e.type === "rubric-update")
      .map((e) => (e.type === "rubric-update" ? e.kind : ""));
    expect(rubrics).toContain("persistent");
    expect(rubrics).toContain("ephemeral");
    expect(rubrics).toContain("search");

    // The outline is fixed: one outline-update, before the loop.
    expect(events.filter((e) => e.type === "outline-update")).toHaveLength(1);
    // Writer prompts carry the persistent rubric and never the ephemeral one.
    for (const role of ["section", "coherence"] as const) {
      for (const system of world.script.systems[role]) {
        expect(system).toContain("PERSISTENT-Coverage");
        expect(system).not.toContain("EPHEMERAL-GAP");
      }
    }
    const report = result.outcome!.report;
    expect(citedNumbers(report.body).every((n) => n >= 1 && n <= report.references.length)).toBe(true);
    expect(report.references.length).toBeGreaterThan(0);
  });

  it("re-asks an illegal DAG and never executes it", async () => {
    let planner = 0;
    world = await startResearchWorld({
      override: (role: ScriptRole, body: ChatBody) => {
        if (role !== "graph-planner" || ++planner > 2) return undefined;
        const nodes = parsePlan(userText(body)).map(proposal);
        const cyclic = [
          { id: "T-20", type: "search", title: "A", goal: "goal a", deps: ["T-21"], depth: 1 },
          { id: "T-21", type: "search", title: "B", goal: "goal b", deps: ["T-20"], depth: 1 },
        ];
        return {
          kind: "text",
          text: JSON.stringify({
            assessments: [],
            decision: { changePlan: true, reasons: ["new-gap"], explanation: "add two" },
            plan: [...nodes, ...cyclic],
            actions: ["T-20", "T-21"],
            synthesize: false,
          }),
        };
      },
    });
    const result = await world.research({ query });
    expect(result.record.status).toBe("completed");
    const warnings = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
    expect(warnings).toContain("PLAN_ILLEGAL");
    expect(warnings).toContain("PLAN_REJECTED");
    expect(
      result.events.some((e) => e.type === "node-start" && (e.nodeId === "T-20" || e.nodeId === "T-21")),
    ).toBe(false);
    // The illegal plan was re-asked once, with its violations.
    expect(world.script.counts["graph-planner"]).toBe(2);
    expect(
      result.events.some(
        (e) => e.type === "warning" && e.code === "PLAN_ILLEGAL" && e.message.includes("CYCLE"),
      ),
    ).toBe(true);
  });

  it("never changes an executed node when the planner rewrites it", async () => {
    let planner = 0;
    world = await startResearchWorld({
      override: (role: ScriptRole, body: ChatBody) => {
        if (role !== "graph-planner" || ++planner > 1) return undefined;
        const nodes = parsePlan(userText(body)).map((n) =>
          n.id === "T-1" ? { ...proposal(n), title: "REWRITTEN", goal: "rewritten goal" } : proposal(n),
        );
        return {
          kind: "text",
          text: JSON.stringify({
            assessments: [],
            decision: { changePlan: true, reasons: ["failed-or-off-topic"], explanation: "rewrite" },
            plan: nodes,
            actions: [],
            synthesize: false,
          }),
        };
      },
    });
    const result = await world.research({ query });
    const updates = result.events.filter((e) => e.type === "plan-update");
    const withDiff = updates.find((e) => e.type === "plan-update" && e.diff !== undefined);
    expect(withDiff).toMatchObject({ diff: { ignored: ["T-1"] } });
    for (const u of updates) {
      const t1 = (
        (u.type === "plan-update" ? u.graph : null) as { nodes: { id: string; title: string }[] }
      ).nodes.find((n) => n.id === "T-1");
      expect(t1?.title).not.toBe("REWRITTEN");
    }
  });

  it("bounds the reflection gate's revise rounds and records the dropped action", async () => {
    world = await startResearchWorld({ criticRejects: ["T-5"] });
    const result = await world.research({ query });
    const verdicts = result.events.flatMap((e) =>
      e.type === "gate-verdict" && e.nodeId === "T-5" ? [[e.verdict, e.round]] : [],
    );
    expect(verdicts).toEqual([
      ["revise", 1],
      ["revise", 2],
      ["drop", 3],
    ]);
    expect(world.script.counts.revision).toBe(2);
    expect(result.events.some((e) => e.type === "node-start" && e.nodeId === "T-5")).toBe(false);
    expect(result.record.status).toBe("completed");
  });

  it("keeps inner search agents within their caps: rounds, sub-queries per round, results per query", async () => {
    world = await startResearchWorld({
      innerQueries: 5,
      innerNeverDone: true,
      noGapsFromCycle: 1,
      expandIterations: 1,
    });
    const result = await world.research({ query });
    const events = result.events;
    const scopes = new Set(
      events.map((e) => e.scope).filter((s): s is string => Boolean(s?.startsWith("search:"))),
    );
    expect(scopes.size).toBeGreaterThanOrEqual(3);
    for (const scope of scopes) {
      const searches = events.filter(
        (e) => e.scope === scope && e.type === "tool-start" && e.tool === "web_search",
      );
      const rounds = events.filter((e) => e.scope === scope && e.type === "rubric-update").length + 1;
      expect(rounds).toBeLessThanOrEqual(10);
      expect(searches.length).toBeLessThanOrEqual(1 + 3 * (rounds - 1));
      for (const end of events.filter(
        (e) => e.scope === scope && e.type === "tool-end" && e.tool === "web_search",
      )) {
        expect(end.type === "tool-end" && (end.resultCount ?? 0)).toBeLessThanOrEqual(3);
      }
    }
    // A fine-phase node ran the full 10 rounds.
    const fine = events.filter((e) => e.scope === "search:T-5" && e.type === "rubric-update").length + 1;
    expect(fine).toBe(10);
  });

  it("stops on the ephemeral rubric's noFurtherRetrieval before the iteration cap", async () => {
    world = await startResearchWorld({ noGapsFromCycle: 1 });
    const result = await world.research({ query });
    expect(world.script.counts["graph-planner"]).toBe(1);
    expect(result.events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
      reason: "no-gaps",
    });
    expect(result.record.stopReason).toBe("completed");
  });

  it("survives failing inner agents", async () => {
    world = await startResearchWorld({ searchFailsWith: 500 });
    const result = await world.research({ query });
    expect(result.record.status).toBe("completed");
    expect(
      result.events.filter((e) => e.type === "node-end" && e.status === "failed").length,
    ).toBeGreaterThan(0);
    expect(result.outcome!.paths).toHaveLength(1);
  });

  it("asks clarifying questions through the callback and records assumptions without one", async () => {
    const ambiguous = (body: ChatBody) => {
      const user = userText(body);
      const answered = user.includes("The user answered");
      return {
        kind: "text" as const,
        text: JSON.stringify({
          topic: answered ? "EU battery prices 2024-2026" : "battery prices",
          objectives: ["prices"],
          constraints: answered ? ["EU only"] : [],
          timeScope: { description: "2024 to 2026" },
          requiredOutputs: [],
          broadQueries: ["battery prices", "battery price outlook"],
          ambiguous: !answered,
          clarifyingQuestions: answered ? [] : ["Which region?", "Which period?"],
          assumptions: answered ? [] : ["worldwide", "last two years"],
        }),
      };
    };
    world = await startResearchWorld({
      noGapsFromCycle: 1,
      override: (role, body) => (role === "router" ? ambiguous(body) : undefined),
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
    const framed = interactive.events.find((e) => e.type === "task-framed");
    expect(framed).toMatchObject({
      spec: { topic: "EU battery prices 2024-2026", constraints: ["EU only"] },
      assumptions: [],
    });

    const batch = await world.research({ query: "battery prices?" });
    expect(world.script.counts.router).toBe(3);
    expect(batch.events.find((e) => e.type === "task-framed")).toMatchObject({
      assumptions: ["worldwide", "last two years"],
    });
  });
});
