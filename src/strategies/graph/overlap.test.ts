/**
 * graph's overlaps, pinned without timing (see test/research/overlap-gate.ts): the Writer's
 * outline reads the survey's evidence, so it is asked while the survey's summaries are held
 * back (and only after every survey tool call returned); INITGUIDANCE and
 * INITPLAN read only the topic and the outline, so the persistent rubric and the first plan are
 * in flight together; the ephemeral rubric reads the evidence, not the nodes' summaries, so it
 * is asked while the summaries (and the llm node's consolidation note) it no longer waits for
 * are held back.
 */

import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import { heldUntil, holdAll, together } from "../../../test/research/overlap-gate.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import type { DossierEvent } from "../../core/events.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const RUBRIC = "quality standard a research team works to";
const INITPLAN = "first research plan of a team";
const GAPS = "check the research state of a team";
const SUMMARY = "findings of one research subtask";
const CONSOLIDATE = "consolidate research evidence without searching further";
const OUTLINE = "Design the outline of a long, well-structured research report";

describe("graph overlaps", () => {
  it("outlines while the survey's summaries are written, drafts the persistent rubric and INITPLAN together, and checks gaps while summaries are being written", async () => {
    const framing = together([RUBRIC, INITPLAN]);
    // INITPLAN's search nodes are titled "Evidence for …" by the script; the survey's are not.
    const summaries = heldUntil(
      (r) => r.system.includes(SUMMARY) && r.user.includes("Subtask: Evidence for"),
      (r) => r.system.includes(GAPS),
    );
    // The outline reads the survey's evidence, not its summaries.
    const surveySummaries = heldUntil(
      (r) => r.system.includes(SUMMARY) && r.user.includes("Subtask: Survey"),
      (r) => r.system.includes(OUTLINE),
    );
    const note = heldUntil(
      (r) => r.system.includes(CONSOLIDATE),
      (r) => r.system.includes(GAPS),
      2,
    );
    world = await startResearchWorld({
      hold: holdAll(framing, surveySummaries, summaries, note),
      expectCalls: DEFAULT_GRAPH_CALLS,
    });
    const result = await world.research({ query: "How is topic adoption changing?" });
    expect(result.record).toMatchObject({ status: "completed", stopReason: "planner-synthesize" });
    expect(framing.timedOut).toBe(false);
    expect(surveySummaries.timedOut).toBe(false);
    expect(summaries.timedOut).toBe(false);
    expect(note.timedOut).toBe(false);

    // The event log shows the same: each call issued before the calls it no longer waits for returned.
    const events = result.events;
    const starts = (role: string, scope?: (s: string) => boolean) =>
      events.filter(
        (e): e is Extract<DossierEvent, { type: "llm-start" }> =>
          e.type === "llm-start" && e.role === role && (!scope || scope(e.scope ?? "")),
      );
    const endOf = (callId: string) => events.find((e) => e.type === "llm-end" && e.callId === callId)!.seq;
    const [outline] = starts("writer", (s) => s === "outline");
    const surveyEnds = events.filter(
      (e) => e.type === "node-end" && (e.nodeId === "T-1" || e.nodeId === "T-2"),
    );
    expect(surveyEnds).toHaveLength(2);
    for (const end of surveyEnds) expect(outline!.seq).toBeLessThan(end.seq);
    // …but only once the survey's evidence is settled: no survey tool call ends after it was issued.
    const surveyTools = events.filter(
      (e) => e.type === "tool-end" && (e.scope === "search:T-1" || e.scope === "search:T-2"),
    );
    expect(surveyTools.length).toBeGreaterThan(0);
    for (const t of surveyTools) expect(t.seq).toBeLessThan(outline!.seq);
    const [rubric] = starts("rubricer");
    const initPlan = starts("planner", (s) => s === "planner")[0]!;
    expect(rubric!.seq).toBeLessThan(endOf(initPlan.callId));
    expect(initPlan.seq).toBeLessThan(endOf(rubric!.callId));
    const gapChecks = starts("rubricer").slice(1);
    expect(gapChecks).toHaveLength(2);
    const lastSummaryEnd = Math.max(
      ...events
        .filter((e) => e.type === "node-end" && (e.nodeId === "T-5" || e.nodeId === "T-6"))
        .map((e) => e.seq),
    );
    expect(gapChecks[0]!.seq).toBeLessThan(lastSummaryEnd);
    const consolidated = events.find((e) => e.type === "node-end" && e.nodeId === "T-7")!.seq;
    expect(gapChecks[1]!.seq).toBeLessThan(consolidated);

    // INITPLAN reads the topic and the outline, not the persistent rubric (Algorithm 1, line 3).
    expect(world.script.prompts["init-plan"][0]).not.toContain("PERSISTENT-");
    // The early gap check still sees what every node of the batch gathered.
    const first = world.script.prompts["ephemeral-rubric"][0]!;
    expect(first).toMatch(/served by T-5 \([1-9]\d* evidence\)/);
    expect(first).toMatch(/served by T-6 \([1-9]\d* evidence\)/);
  }, 90_000);
});

const CRITIC = "You are the critic of a research team";

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
    expect(gapChecks).toHaveLength(3);
    expect(gapChecks[2]!.seq).toBeLessThan(endOf(events, critics[1]!.callId));
    // Nothing was discarded: the gate approved every action as planned.
    expect(events.some((e) => e.type === "warning" && e.code === "DRAFT_DISCARDED")).toBe(false);
  }, 90_000);
});
