/**
 * The library side of follow-up questions: `dossier.ask(question, { about })` over a finished
 * run of the loopback research world (strict scripted model) answers from the run's evidence
 * with no search, and records the evidence it uses as its own source-add / evidence-add events
 * (every citation resolves from the follow-up's event log), so a refresh of it finds them; a
 * follow-up cancelled mid-way is resumed by another Dossier like any run; bad input is a coded
 * error before any model call.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { worldCancellingFollowUp } from "../../test/research/follow-up-world.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { isDossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import { sourceLocator } from "../core/source.ts";
import type { AskCitation } from "../strategies/smtl/answer.ts";
import type { FollowUpResult } from "./ask-about.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { earlierEvidence } from "./earlier-evidence.ts";
import { refresh } from "./refresh.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
afterEach(async () => {
  await dossier?.close();
  await world?.close();
  dossier = undefined;
  world = undefined;
});

const PARENT = { "smtl-plan": 1, "smtl-step": 2, reader: 1 } as const;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (error) {
    return isDossierError(error) ? error.code : String(error);
  }
}

/** Every citation of the answer-ready event resolves to evidence and a source of `events` (one run's log). */
function unresolvedCitations(events: readonly DossierEvent[]): string[] {
  const { sources, evidence } = earlierEvidence(events);
  const ready = events.filter((e) => e.type === "answer-ready").at(-1);
  if (ready?.type !== "answer-ready") return ["no answer-ready event"];
  const citations = ready.citations as AskCitation[];
  expect(citations.length).toBeGreaterThan(0);
  return citations.flatMap((c) => {
    if (c.evidence.length === 0) return [`[${c.number}] names no passage`];
    return c.evidence.flatMap((id) => {
      const e = evidence.find((x) => x.id === id);
      const s = e && sources.find((x) => x.id === e.sourceId);
      if (!e) return [`[${c.number}] ${id}: no evidence-add`];
      if (!s) return [`[${c.number}] ${id}: no source-add of ${e.sourceId}`];
      return sourceLocator(s) === c.locator ? [] : [`[${c.number}] ${id}: another source`];
    });
  });
}

describe("dossier.ask(question, { about })", () => {
  it("records the parent's sources and passages it uses as its own events: its citations resolve from its log", async () => {
    world = await startResearchWorld({ expectCalls: PARENT });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.ask("Which topic grew by 11 percent in 2025?");
    world.script.expectCalls({ ...PARENT, "follow-up": 1 });
    const result = (await dossier.ask("And topic 2?", { about: parent.runId })) as FollowUpResult;
    expect(result.fromRunEvidence).toBe(true);
    const events = await dossier.runs.events(result.runId);
    expect(unresolvedCitations(events)).toEqual([]);
    // The copies keep the parent's provenance: the same passages, retrieved by the parent's calls.
    const parentHeld = earlierEvidence(await dossier.runs.events(parent.runId));
    const childHeld = earlierEvidence(events);
    expect(childHeld.sources.map(sourceLocator)).toEqual(parentHeld.sources.map(sourceLocator));
    const cited = childHeld.evidence.find((e) => e.id === result.citations[0]!.evidence[0])!;
    const original = parentHeld.evidence.find((e) => e.text === cited.text)!;
    expect(cited.retrievedBy).toEqual(original.retrievedBy);
  });

  it("can be refreshed: the refresh finds the follow-up's sources in its log and rewrites nothing when nothing changed", async () => {
    world = await startResearchWorld({ expectCalls: PARENT });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.ask("Which topic grew by 11 percent in 2025?");
    world.script.expectCalls({ ...PARENT, "follow-up": 1 });
    const followUp = (await dossier.ask("And topic 2?", { about: parent.runId })) as FollowUpResult;
    const refreshed = await refresh(dossier, followUp.runId, { maxSearches: 0 });
    expect(refreshed).toMatchObject({ status: "completed", version: 2, sectionsChanged: [] });
    expect(refreshed.report!.body).toBe(followUp.research.report!.body);
    const page2 = parent.citations.find((c) => /\/page\/2$/.test(c.locator))!;
    expect(refreshed.report!.references.map((r) => [r.number, r.locator])).toEqual([
      [page2.number, page2.locator],
    ]);
  });

  it("is resumed like any run by another Dossier, which reads the run it is about from the store again", async () => {
    // The follow-up's first writer call is cancelled in flight: answered (to nobody) at the end.
    const held = await worldCancellingFollowUp(PARENT);
    world = held.world;
    const { controller, release } = held;
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.ask("Which topic grew by 11 percent in 2025?");
    world.script.expectCalls({ ...PARENT, "follow-up": 2 });
    const cancelled = (await dossier.ask("And topic 2?", {
      about: parent.runId,
      signal: controller.signal,
    })) as FollowUpResult;
    expect(cancelled.status).toBe("cancelled");
    const second = createDossier({ config: world.config, cwd: world.home, env: {} });
    try {
      const resumed = await second.runs.resume(cancelled.runId).done;
      expect(resumed.status).toBe("completed");
      const events = await second.runs.events(cancelled.runId);
      expect(events.filter((e) => e.type === "run-resume")).toHaveLength(1);
      expect(events.some((e) => e.type === "tool-start")).toBe(false);
      expect(unresolvedCitations(events)).toEqual([]);
      const ready = events.filter((e) => e.type === "answer-ready").at(-1);
      const page2 = parent.citations.find((c) => /\/page\/2$/.test(c.locator))!;
      expect(ready?.type === "answer-ready" && ready.answer).toBe(
        `Topic 2 is covered by the evidence [${page2.number}].`,
      );
    } finally {
      await second.close();
    }
    release();
    const script = world.script;
    await vi.waitFor(() => expect(script.counts["follow-up"]).toBe(2));
  });

  it("answers a follow-up from the finished run's evidence, as a child run naming its parent", async () => {
    world = await startResearchWorld({ expectCalls: PARENT });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.ask("Which topic grew by 11 percent in 2025?");
    expect(parent.status).toBe("completed");
    world.script.expectCalls({ ...PARENT, "follow-up": 1 });
    const result = (await dossier.ask("And topic 2?", { about: parent.runId })) as FollowUpResult;
    expect(result).toMatchObject({
      about: parent.runId,
      fromRunEvidence: true,
      searches: [],
      status: "completed",
    });
    // The same number as the parent's answer gave page 2.
    const page2 = parent.citations.find((c) => /\/page\/2$/.test(c.locator))!;
    expect(result.citations.map((c) => c.number)).toEqual([page2.number]);
    const child = await dossier.runs.get(result.runId);
    expect(child.strategy).toBe("follow-up");
    expect(JSON.stringify(child.options)).toContain(parent.runId);
    const events = await dossier.runs.events(result.runId);
    expect(events.some((e) => e.type === "tool-start")).toBe(false);
  });

  it("refuses an unknown run, an empty question and deep-search options before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    expect(await codeOf(dossier.ask("And topic 2?", { about: "no-such-run" }))).toBe("NOT_FOUND");
    expect(await codeOf(dossier.ask("  ", { about: "no-such-run" }))).toBe("INPUT_INVALID");
    expect(await codeOf(dossier.ask("And topic 2?", { about: "x", steps: 3 }))).toBe("INPUT_INVALID");
    expect(world.model.requests).toHaveLength(0);
  });
});
