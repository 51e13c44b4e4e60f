/**
 * graph's structure and overlaps, pinned without timing (see test/research/overlap-gate.ts): the
 * broad searches are direct tool calls, so the Writer's outline is asked once every one of
 * their searches and page reads has ended, with no inner agent before it; INITPLAN writes the
 * persistent rubric, the first plan and the first actions in one call, so it is the only model
 * call between the outline and the first gate, and the first batch's tools wait for the critic's
 * verdict; the ephemeral rubric reads the evidence, not the nodes' summaries, so it is asked
 * while the summaries (and the llm node's consolidation note) it no longer waits for are held back.
 */

import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import type { ScriptRole } from "../../../test/research/model-script.ts";
import { heldUntil, holdAll } from "../../../test/research/overlap-gate.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import type { DossierEvent } from "../../core/events.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const GAPS = "check the research state of a team";
const SUMMARY = "findings of one research subtask";
const CONSOLIDATE = "consolidate research evidence without searching further";
const CRITIC = "You are the critic of a research team";
const REVISE = "Revise the rejected research actions";

describe("graph's coarse phase and overlaps", () => {
  it("outlines after the broad searches' tool calls ended, runs INITPLAN alone before the first gate, and checks gaps while summaries are being written", async () => {
    // INITPLAN's search nodes are titled "Evidence for …" by the script.
    const summaries = heldUntil(
      (r) => r.system.includes(SUMMARY) && r.user.includes("Subtask: Evidence for"),
      (r) => r.system.includes(GAPS),
    );
    const note = heldUntil(
      (r) => r.system.includes(CONSOLIDATE),
      (r) => r.system.includes(GAPS),
      2,
    );
    // The first critic answers only once the first batch's inner agents asked for their first
    // plan: a tool that did not wait for its verdict would run while it is held.
    const verdict = heldUntil(
      (r) => r.system.includes(CRITIC) && r.user.includes("T-5 [search]"),
      (r) => /^Subtask T-[56]: /m.test(r.user) && r.user.includes("Plan round 1 of"),
      2,
    );
    const arrivals: ScriptRole[] = [];
    world = await startResearchWorld({
      hold: holdAll(summaries, note, verdict),
      onCall: (role) => arrivals.push(role),
      expectCalls: DEFAULT_GRAPH_CALLS,
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    expect(summaries.timedOut).toBe(false);
    expect(note.timedOut).toBe(false);
    expect(verdict.timedOut).toBe(false);

    const events = result.events;
    const llmStarts = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> => e.type === "llm-start",
    );
    const starts = (role: string, scope?: (s: string) => boolean) =>
      llmStarts.filter((e) => e.role === role && (!scope || scope(e.scope ?? "")));
    const endOf = (callId: string) => events.find((e) => e.type === "llm-end" && e.callId === callId)!.seq;
    const [outline] = starts("writer", (s) => s === "outline");

    // The outline is asked only once every broad-search tool call — the searches and the page
    // reads — has ended, and no inner agent planned or summarised a broad search before it: the
    // model saw only the router and the broad searches' page readers.
    const survey = new Set(["search:T-1", "search:T-2"]);
    const surveyTools = events.filter((e) => e.type === "tool-end" && survey.has(e.scope ?? ""));
    const tools = new Set(surveyTools.map((e) => e.type === "tool-end" && e.tool));
    expect(tools.has("web_search")).toBe(true);
    expect(tools.has("fetch_page") || tools.has("crawl_page")).toBe(true);
    for (const t of surveyTools) expect(t.seq).toBeLessThan(outline!.seq);
    const readers = starts("reader", (s) => survey.has(s));
    expect(readers).toHaveLength(2);
    for (const r of readers) expect(endOf(r.callId)).toBeLessThan(outline!.seq);
    const before = llmStarts.filter((e) => e.seq < outline!.seq).map((e) => e.role);
    expect(before).toEqual(["router", "reader", "reader"]);
    expect(arrivals.slice(0, arrivals.indexOf("outline") + 1)).toEqual([
      "router",
      "reader",
      "reader",
      "outline",
    ]);

    // INITPLAN (which writes the persistent rubric) is the only model call between the outline and
    // the first critic call: no separate rubric call, no planner turn before the first gate.
    const [critic] = starts("critic");
    const between = llmStarts.filter((e) => e.seq > outline!.seq && e.seq < critic!.seq);
    expect(between.map((e) => [e.role, e.scope])).toEqual([["planner", "planner"]]);
    expect(arrivals.indexOf("init-plan")).toBeGreaterThan(arrivals.indexOf("outline"));
    expect(arrivals.indexOf("init-plan")).toBeLessThan(arrivals.indexOf("critic"));
    expect(arrivals.indexOf("graph-planner")).toBeGreaterThan(arrivals.indexOf("critic"));
    const persistent = events.find((e) => e.type === "rubric-update" && e.kind === "persistent")!;
    expect(persistent.seq).toBeGreaterThan(endOf(between[0]!.callId));
    expect(persistent.seq).toBeLessThan(critic!.seq);
    // The first batch's search tool calls start only after the critic's verdict on them.
    for (const id of ["T-5", "T-6"]) {
      const verdict = events.find((e) => e.type === "gate-verdict" && e.nodeId === id)!;
      expect(verdict.seq).toBeGreaterThan(endOf(critic!.callId));
      const firstTools = events.filter((e) => e.type === "tool-start" && e.scope === `search:${id}`);
      expect(firstTools.length).toBeGreaterThan(0);
      for (const t of firstTools) expect(t.seq).toBeGreaterThan(verdict.seq);
    }

    // The ephemeral rubric is asked while the summaries and the note it no longer waits for are held.
    const gapChecks = starts("rubricer");
    expect(gapChecks).toHaveLength(2);
    const lastSummaryEnd = Math.max(
      ...events
        .filter((e) => e.type === "node-end" && (e.nodeId === "T-5" || e.nodeId === "T-6"))
        .map((e) => e.seq),
    );
    expect(gapChecks[0]!.seq).toBeLessThan(lastSummaryEnd);
    const consolidated = events.find((e) => e.type === "node-end" && e.nodeId === "T-7")!.seq;
    expect(gapChecks[1]!.seq).toBeLessThan(consolidated);

    // INITPLAN reads the topic and the outline; the rubric is in its answer, not its prompt.
    expect(world.script.prompts["init-plan"][0]).not.toContain("PERSISTENT-");
    // The early gap check still sees what every node of the batch gathered.
    const first = world.script.prompts["ephemeral-rubric"][0]!;
    expect(first).toMatch(/served by T-5 \([1-9]\d* evidence\)/);
    expect(first).toMatch(/served by T-6 \([1-9]\d* evidence\)/);
  }, 90_000);
});

describe("graph's reflection gate alongside the actions' first model calls", () => {
  const callsOf = (events: readonly DossierEvent[], scope: string) =>
    events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" | "tool-start" }> =>
        (e.type === "llm-start" || e.type === "tool-start") && e.scope === scope,
    );
  const endOf = (events: readonly DossierEvent[], callId: string) =>
    events.find((e) => e.type === "llm-end" && e.callId === callId)!.seq;

  it("plans the searches and writes the llm node's note while the critic decides; no tool runs before its verdict", async () => {
    // The critic of the first cycle answers only once both searches have asked for their first plan…
    const searches = heldUntil(
      (r) => r.system.includes(CRITIC) && r.user.includes("T-5 [search]"),
      (r) => /^Subtask T-[56]: /m.test(r.user) && r.user.includes("Plan round 1 of"),
      2,
    );
    // …and the critic of the second once the llm node has asked for its note and the gaps
    // (its evidence is chosen, not retrieved) are being checked.
    const note = heldUntil(
      (r) => r.system.includes(CRITIC) && r.user.includes("T-7 [llm]"),
      (r) => r.system.includes(CONSOLIDATE) || r.system.includes(GAPS),
      2,
    );
    world = await startResearchWorld({ hold: holdAll(searches, note), expectCalls: DEFAULT_GRAPH_CALLS });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    expect(searches.timedOut).toBe(false);
    expect(note.timedOut).toBe(false);

    const events = result.events;
    const critics = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> => e.type === "llm-start" && e.role === "critic",
    );
    expect(critics).toHaveLength(2);
    const verdictOf = (id: string) =>
      events.find((e) => e.type === "gate-verdict" && e.nodeId === id && e.verdict === "approve")!.seq;
    for (const id of ["T-5", "T-6"]) {
      const calls = callsOf(events, `search:${id}`);
      // The first plan was asked before the critic answered…
      expect(calls[0]).toMatchObject({ type: "llm-start", role: "searcher" });
      expect(calls[0]!.seq).toBeLessThan(endOf(events, critics[0]!.callId));
      // …and every tool ran after the verdict.
      const tools = calls.filter((c) => c.type === "tool-start");
      expect(tools.length).toBeGreaterThan(0);
      for (const t of tools) expect(t.seq).toBeGreaterThan(verdictOf(id));
    }
    const [consolidation] = callsOf(events, "llm:T-7");
    expect(consolidation!.seq).toBeLessThan(endOf(events, critics[1]!.callId));
    const gapChecks = events.filter((e) => e.type === "llm-start" && e.role === "rubricer");
    expect(gapChecks).toHaveLength(2);
    expect(gapChecks[1]!.seq).toBeLessThan(endOf(events, critics[1]!.callId));
    // Nothing was discarded: the gate approved every action as planned.
    expect(events.some((e) => e.type === "warning" && e.code === "DRAFT_DISCARDED")).toBe(false);
  }, 90_000);

  it("runs an action the critic approves while it revises another: each action waits for its own verdict only", async () => {
    // The critic sends T-5 back every round and approves T-6. The revision is answered only once
    // T-6 has asked for its second round's plan — after its first round's tools ran: an approved
    // action that waited for the whole gate would still be waiting while the revision is held.
    const approvedRuns = heldUntil(
      (r) => r.system.includes(REVISE),
      (r) => /^Subtask T-6: /m.test(r.user) && r.user.includes("Plan round 2 of"),
    );
    // After the second (last) revision the critic cannot send T-5 back: its verdict on the last
    // revision is answered only once T-5 has asked for its second round's plan — after the first
    // round of the revised node planned and its tools ran. A node that waited for that verdict
    // would still be waiting while it is held.
    let criticsOfRevisedT5 = 0;
    const lastRevisionRuns = heldUntil(
      (r) =>
        r.system.includes(CRITIC) && r.user.includes("revised goal of T-5") && ++criticsOfRevisedT5 === 2,
      (r) => /^Subtask T-5: Revised T-5 — revised goal/m.test(r.user) && r.user.includes("Plan round 2 of"),
    );
    world = await startResearchWorld({
      hold: holdAll(approvedRuns, lastRevisionRuns),
      criticRejects: ["T-5"],
      expectCalls: { ...DEFAULT_GRAPH_CALLS, critic: 4, revision: 2, "inner-step": 5 },
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(result.record.status).toBe("completed");
    expect(approvedRuns.timedOut).toBe(false);
    expect(lastRevisionRuns.timedOut).toBe(false);

    const events = result.events;
    const verdicts = events.filter((e) => e.type === "gate-verdict");
    const t6Approved = verdicts.find((e) => e.nodeId === "T-6" && e.verdict === "approve")!;
    const t5Cleared = verdicts.find((e) => e.nodeId === "T-5" && e.verdict === "run-revised")!;
    expect(t5Cleared).toMatchObject({ round: 3 });
    const t6Tools = callsOf(events, "search:T-6").filter((c) => c.type === "tool-start");
    const t5Tools = callsOf(events, "search:T-5").filter((c) => c.type === "tool-start");
    // T-6's tools ran between its own verdict and T-5's last one.
    expect(t6Tools[0]!.seq).toBeGreaterThan(t6Approved.seq);
    expect(t6Tools[0]!.seq).toBeLessThan(t5Cleared.seq);
    // T-5's ran once its last revision was answered — not before, and without its last verdict.
    const revisions = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> =>
        e.type === "llm-start" && e.role === "planner" && e.scope === "gate",
    );
    expect(revisions).toHaveLength(2);
    const lastRevised = endOf(events, revisions[1]!.callId);
    const critics = events.filter(
      (e): e is Extract<DossierEvent, { type: "llm-start" }> => e.type === "llm-start" && e.role === "critic",
    );
    const lastCritic = critics.find((c) => c.seq > lastRevised)!;
    expect(t5Tools.length).toBeGreaterThan(0);
    for (const t of t5Tools) expect(t.seq).toBeGreaterThan(lastRevised);
    expect(t5Tools[0]!.seq).toBeLessThan(endOf(events, lastCritic.callId));
    expect(JSON.stringify(t5Tools[0])).toContain("revised goal of T-5 with metric");
  }, 90_000);
});
