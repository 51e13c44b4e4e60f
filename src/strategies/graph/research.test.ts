import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_GRAPH_CALLS,
  innerStepAnswer,
  parsePlan,
  persistentItems,
  proposal,
} from "../../../test/research/graph-answers.ts";
import type { ChatBody } from "../../../test/research/model-script.ts";
import { json, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent } from "../../core/events.ts";
import { FALLBACK_RUBRIC } from "./framing.ts";
import { GAP_SECTION_CHARS, passagesWithin } from "./gap-evidence.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
/** A planner that never changes the plan, names no action and never asks for the report. */
const keeper = (body: ChatBody) =>
  json({
    assessments: [],
    decision: { changePlan: false, reasons: [], explanation: "keep" },
    plan: parsePlan(userText(body)).map(proposal),
    actions: [],
    synthesize: false,
  });
/** Search nodes that ran after the outline, with the sections they served. */
const fineSearches = (events: DossierEvent[]) => {
  const graph = events.filter((e) => e.type === "plan-update").at(-1) as unknown as {
    graph: { nodes: { id: string; type: string; sections?: string[] }[] };
  };
  const started = new Set(events.flatMap((e) => (e.type === "node-start" ? [e.nodeId] : [])));
  return graph.graph.nodes.filter((n) => n.type === "search" && n.sections?.length && started.has(n.id));
};

describe("graph strategy: INITPLAN", () => {
  for (const [name, initPlan, calls, rubricFallback] of [
    [
      "proposes nothing",
      () => json({ rubric: persistentItems(), rationale: "nothing to add", nodes: [], actions: [] }),
      1,
      false,
    ],
    ["never answers validly", () => ({ kind: "text" as const, text: "{ not json" }), 3, true],
  ] as const) {
    it(`runs a search node per level-1 section when the planner keeps the plan and INITPLAN ${name}`, async () => {
      world = await startResearchWorld({
        override: (role, body) =>
          role === "init-plan" ? initPlan() : role === "graph-planner" ? keeper(body) : undefined,
        expectCalls: {
          ...DEFAULT_GRAPH_CALLS,
          "init-plan": calls,
          // The first cycle runs the four added searches; the planner's one turn keeps the plan.
          "graph-planner": 1,
          critic: 1,
          "inner-step": 4 * 2,
          reader: 2 + 4,
          "sub-report": 4,
          consolidate: 0,
          "ephemeral-rubric": 1,
        },
      });
      const result = await world.research({ query });
      expect(result.record.status).toBe("completed");
      const warning = result.events.find((e) => e.type === "warning" && e.code === "INITPLAN_FALLBACK");
      expect(warning).toMatchObject({ message: expect.stringContaining("section(s) 1, 2, 3, 4") });
      // A failed INITPLAN also leaves no persistent rubric: the fixed one is used, saying so.
      const codes = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
      expect(codes).toEqual(
        rubricFallback ? ["RUBRIC_FALLBACK", "INITPLAN_FALLBACK"] : ["INITPLAN_FALLBACK"],
      );
      expect(result.events.find((e) => e.type === "rubric-update" && e.kind === "persistent")).toMatchObject({
        rubric: rubricFallback ? FALLBACK_RUBRIC : expect.stringContaining("PERSISTENT-Coverage"),
      });
      const served = fineSearches(result.events).flatMap((n) => n.sections!);
      for (const section of ["1", "2", "3", "4"]) expect(served).toContain(section);
      // The added searches are the first actions: they all run in the first cycle.
      expect(result.events.find((e) => e.type === "phase" && e.phase === "researching")).toMatchObject({
        detail: "iteration 1: 4 nodes",
      });
      expect(result.events.find((e) => e.type === "decision" && e.decision === "stop")).toMatchObject({
        reason: "frontier-empty",
      });
    });
  }

  it("keeps the planner's first plan and fills only the sections it left uncovered", async () => {
    world = await startResearchWorld({
      override: (role, body) => {
        if (role !== "init-plan") return undefined;
        const next = Math.max(...parsePlan(userText(body)).map((n) => Number(n.id.slice(2)))) + 1;
        return json({
          rubric: persistentItems(),
          rationale: "one search for the first two sections",
          nodes: [
            {
              id: "T-90",
              type: "search",
              title: "First two",
              goal: "topic 1 background",
              deps: [],
              depth: 4,
              sections: ["1", "2", "9"],
            },
            { id: "T-91", type: "report", title: "Another report", goal: "write", deps: [], depth: 5 },
            {
              id: `T-${next}`,
              type: "llm",
              title: "Check",
              goal: "check the first two",
              deps: ["T-90", "T-404"],
              depth: 1,
            },
          ],
          actions: ["T-90"],
        });
      },
      expectCalls: { ...DEFAULT_GRAPH_CALLS, "inner-step": 3 * 2, reader: 2 + 3, "sub-report": 3 },
    });
    const result = await world.research({ query });
    const init = result.events.find((e) => e.type === "plan-update" && e.diff !== undefined)!;
    const nodes = (init as unknown as { graph: { nodes: Record<string, unknown>[] } }).graph.nodes;
    // Renumbered, unknown sections and dependencies dropped, depth below the dependency, the report node last.
    expect(nodes.slice(4)).toMatchObject([
      { id: "T-5", type: "search", depth: 2, deps: [], sections: ["1", "2"] },
      { id: "T-6", type: "llm", depth: 3, deps: ["T-5"] },
      { id: "T-7", type: "search", depth: 2, sections: ["3"] },
      { id: "T-8", type: "search", depth: 2, sections: ["4"] },
    ]);
    expect(nodes.find((n) => n.id === "T-4")).toMatchObject({ type: "report", depth: 4 });
    expect(result.events.find((e) => e.type === "warning")).toMatchObject({
      code: "INITPLAN_FALLBACK",
      message: expect.stringContaining("section(s) 3, 4"),
    });
    // The first cycle runs the planner's chosen search and the searches added for sections 3 and 4;
    // the check waits for its dependency.
    const researching = result.events.find((e) => e.type === "phase" && e.phase === "researching")!;
    const firstBatch = result.events.flatMap((e) =>
      e.type === "gate-verdict" && e.seq < researching.seq ? [e.nodeId] : [],
    );
    expect(firstBatch.sort()).toEqual(["T-5", "T-7", "T-8"]);
  });
});

describe("graph strategy: what agents see", () => {
  it("section writers get the findings of their section's nodes and the spec's constraints", async () => {
    world = await startResearchWorld({
      override: (role, body) => {
        const user = userText(body);
        if (role === "router")
          return json({
            topic: "topic adoption",
            objectives: ["state", "drivers"],
            constraints: ["CONSTRAINT-EU-only"],
            timeScope: { description: "SCOPE-2024-2026", from: "2024-01-01", to: "2026-11-24" },
            requiredOutputs: ["OUTPUT-comparison-table"],
            broadQueries: ["topic adoption", "topic 2 overview"],
            ambiguous: false,
            clarifyingQuestions: [],
            assumptions: [],
          });
        if (role === "sub-report") {
          const title = /^Subtask: (.*?) — /m.exec(user)?.[1];
          const ids = [...user.matchAll(/\[(E\d+)\]/g)].slice(0, 2).map((m) => `[${m[1]}]`);
          return { kind: "text", text: `SUMMARY-OF ${title} ${ids.join(" ")}` };
        }
        return undefined;
      },
      expectCalls: DEFAULT_GRAPH_CALLS,
    });
    const result = await world.research({ query });
    const prompts = world.script.prompts.section;
    expect(prompts).toHaveLength(4);
    for (const prompt of prompts) {
      const section = /^Write section (\d+) /m.exec(prompt)![1]!;
      expect(prompt).toContain("Constraints: CONSTRAINT-EU-only");
      expect(prompt).toContain("OUTPUT-comparison-table");
      expect(prompt).toContain("Time scope: SCOPE-2024-2026 (2024-01-01 to 2026-11-24)");
      // The node that served the section, and the cross-check over all sections; not the other search node.
      const own =
        section === "1" || section === "2"
          ? "Evidence for Background and Findings"
          : "Evidence for Comparison and Outlook";
      const other =
        section === "1" || section === "2"
          ? "Evidence for Comparison and Outlook"
          : "Evidence for Background and Findings";
      expect(prompt).toContain(`SUMMARY-OF ${own}`);
      expect(prompt).not.toContain(`SUMMARY-OF ${other}`);
      expect(prompt).toContain("CONSOLIDATION-NOTE");
      // Findings come before the excerpts, and every id a finding cites is among the excerpts.
      const findings = prompt.slice(prompt.indexOf("<findings>"), prompt.indexOf("</findings>"));
      // The broad searches' listings are no findings: their evidence reaches the writer as excerpts.
      expect(findings).not.toContain("Broad search");
      const excerpts = prompt.slice(prompt.indexOf("<evidence>"));
      expect(prompt.indexOf("<findings>")).toBeLessThan(prompt.indexOf("<evidence>"));
      for (const [, id] of findings.matchAll(/\[(E\d+)\]/g))
        expect(excerpts).toMatch(new RegExp(`^\\[${id}\\] `, "m"));
    }
    const report = result.outcome!.report;
    expect(citedNumbers(report.body).every((n) => n >= 1 && n <= report.references.length)).toBe(true);
  });

  it("inner agents plan every round with both rubrics; the ephemeral rubric reads bounded excerpts", async () => {
    world = await startResearchWorld({
      expandIterations: 2,
      expectCalls: {
        ...DEFAULT_GRAPH_CALLS,
        // INITPLAN's searches (no planner turn), two expanding turns, the three cross-checks, then synthesis.
        "graph-planner": 4,
        critic: 4,
        "inner-step": 3 * 2 * 2,
        reader: 2 + 6,
        "sub-report": 6,
        consolidate: 3,
        "ephemeral-rubric": 4,
      },
    });
    const result = await world.research({ query });
    const events = result.events;
    const prompts = world.script.prompts["inner-step"];
    const survey = ["search:T-1", "search:T-2"];
    // Round 1 is planned before any tool runs, in every search node an inner agent researches.
    const scopes = new Set(
      events.flatMap((e) => (e.type === "node-start" && e.nodeType === "search" ? [e.scope!] : [])),
    );
    expect(scopes.size).toBe(survey.length + 6);
    for (const scope of scopes) {
      if (survey.includes(scope)) continue;
      const first = events.find(
        (e) => e.scope === scope && (e.type === "llm-start" || e.type === "tool-start"),
      );
      expect(first?.type).toBe("llm-start");
    }
    // The broad searches have no inner agent: they search at once, before any rubric exists.
    for (const scope of survey)
      expect(
        events.find((e) => e.scope === scope && (e.type === "llm-start" || e.type === "tool-start")),
      ).toMatchObject({
        type: "tool-start",
        tool: "web_search",
      });
    expect(prompts.filter((p) => /^Subtask T-[12]:/m.test(p))).toEqual([]);
    // Every inner agent works with the persistent rubric INITPLAN wrote, from its first round on.
    for (const p of prompts) expect(p).toContain("PERSISTENT-Coverage");
    for (const p of prompts) expect(p).not.toContain("(not written)");
    // Nodes added after the first cycle see the gaps of their own sections only.
    const late = prompts.filter(
      (p) => /^It serves outline sections: 2$/m.test(p) && /^Subtask T-([89]|1[0-9])/m.test(p),
    );
    expect(late.length).toBeGreaterThan(0);
    for (const p of late) {
      expect(p).toContain("EPHEMERAL-GAP section 2 lacks figures");
      expect(p).not.toContain("EPHEMERAL-GAP section 4");
    }
    // Later rounds carry the search rubric written in round 1.
    expect(
      prompts.filter((p) => p.includes("Plan round 2")).every((p) => p.includes("- relevance: keep results")),
    ).toBe(true);
    const searchRubrics = events.flatMap((e) =>
      e.type === "rubric-update" && e.kind === "search" ? [e.rubric] : [],
    );
    for (const r of searchRubrics) expect((r as { items: unknown[] }).items.length).toBeGreaterThanOrEqual(3);
    // The ephemeral rubric reads each section's evidence within its character budget.
    for (const p of world.script.prompts["ephemeral-rubric"]) {
      const sections = p.split(/^Section \d+ /m).slice(1);
      expect(sections).toHaveLength(4);
      for (const s of sections) {
        const written = (s.match(/^\[E\d+\] /gm) ?? []).length;
        const named = (/^also (.*) \(above\)$/m.exec(s)?.[1] ?? "").split(", ").filter(Boolean).length;
        expect(written + named).toBeLessThanOrEqual(passagesWithin(GAP_SECTION_CHARS));
        const text = [...s.matchAll(/^\[E\d+\] (.*)$/gm)].reduce((sum, m) => sum + m[1]!.length, 0);
        expect(text).toBeLessThanOrEqual(GAP_SECTION_CHARS);
      }
      expect(p).toMatch(/served by T-\d+ \(\d+ evidence\)/);
      // Each excerpt is written out once per call; a later section that shares it names its id.
      const ids = [...p.matchAll(/^\[(E\d+)\] /gm)].map((m) => m[1]);
      expect(ids.length).toBeGreaterThan(0);
      expect(new Set(ids).size).toBe(ids.length);
      expect(p).toMatch(/^also \[E\d+\](, \[E\d+\])* \(above\)$/m);
    }
  });

  it("with sources both, inner agents call local_search and the report cites a local document", async () => {
    world = await startResearchWorld({ expectCalls: DEFAULT_GRAPH_CALLS });
    const docs = join(world.home, "docs");
    mkdirSync(docs);
    writeFileSync(
      join(docs, "adoption.md"),
      [
        "# Adoption notes",
        "",
        "## Background",
        "",
        "Topic adoption background: adoption of the topic grew by 30 percent in 2025 according to regional survey figures.",
        "",
        "## Findings",
        "",
        "The findings show topic costs fell while adoption figures rose across regions.",
      ].join("\n"),
    );
    const result = await world.research({ query, sources: "both", docs });
    const tools = (scope: string, tool: string) =>
      result.events.filter((e) => e.scope === scope && e.type === "tool-start" && e.tool === tool).length;
    // The broad searches (T-1, T-2) run their query on both tools directly; the inner agents choose both.
    for (const scope of ["search:T-1", "search:T-2", "search:T-5", "search:T-6"]) {
      expect(tools(scope, "local_search")).toBe(1);
      expect(tools(scope, "web_search")).toBe(1);
    }
    // Without paper search configured, agents are neither told of it nor asked for paper queries.
    for (const system of world.script.systems["inner-step"]) expect(system).not.toMatch(/papers|academic/);
    for (const prompt of world.script.prompts["inner-step"]) expect(prompt).not.toMatch(/papers|academic/);
    const report = result.outcome!.report;
    const local = report.references.filter((r) => r.kind === "local");
    expect(local.length).toBeGreaterThan(0);
    for (const r of local) expect(r.locator).toMatch(/^adoption\.md#[a-z-]+$/);
    const cited = new Set(citedNumbers(report.body));
    expect(local.some((r) => cited.has(r.number))).toBe(true);
    expect([...cited].every((n) => n >= 1 && n <= report.references.length)).toBe(true);
  });

  it("with paper search configured, inner agents send their paper queries to academic_search only", async () => {
    world = await startResearchWorld({
      expectCalls: DEFAULT_GRAPH_CALLS,
      config: { academic: ["openalex"] },
      override: (role, body) => {
        if (role !== "inner-step") return undefined;
        const user = userText(body);
        const answer = innerStepAnswer(user, {}, 0);
        if (!/^Plan round 1 of/m.test(user) || answer.kind !== "text") return answer;
        const node = /^Subtask (T-\d+):/m.exec(user)?.[1];
        return json({
          ...JSON.parse(answer.text),
          papers: [`${node} sparse`, `${node} dense`, `${node} third`],
        });
      },
    });
    const result = await world.research(
      { query },
      { env: { OPENALEX_BASE_URL: world.search.baseUrl("openalex") } },
    );
    expect(result.record.status).toBe("completed");
    // Every inner agent is told it has paper search.
    for (const p of world.script.prompts["inner-step"]) expect(p).toContain("paper search (academic_search");
    for (const system of world.script.systems["inner-step"]) expect(system).toContain("papers?: string[]");
    const starts = result.events.flatMap((e) => (e.type === "tool-start" ? [e] : []));
    // The broad searches run on the general search tools only (paper search is no general tool).
    const survey = ["search:T-1", "search:T-2"];
    for (const scope of survey) {
      expect(starts.filter((e) => e.scope === scope && e.tool === "web_search")).toHaveLength(1);
      expect(starts.some((e) => e.scope === scope && e.tool === "academic_search")).toBe(false);
    }
    const searchNodes = new Set(
      starts.filter((e) => e.tool === "web_search" && !survey.includes(e.scope!)).map((e) => e.scope),
    );
    expect(searchNodes.size).toBe(2);
    for (const scope of searchNodes) {
      const papers = starts.filter((e) => e.scope === scope && e.tool === "academic_search");
      // At most two paper queries a round; the web queries never go to paper search.
      const node = scope!.slice("search:".length);
      expect(papers.map((e) => (e.args as { query: string }).query)).toEqual([
        `${node} sparse`,
        `${node} dense`,
      ]);
    }
    expect(world.search.requestsFor("openalex").length).toBe(2 * searchNodes.size);
    // The agent reads what its paper queries found in its next round.
    const round2 = world.script.prompts["inner-step"].filter((p) => /^Plan round 2 of/m.test(p));
    expect(round2.length).toBe(searchNodes.size);
    for (const p of round2) expect(p).toMatch(/^- academic_search "T-\d+ sparse" → [1-9]\d* item\(s\)/m);
  });
});
