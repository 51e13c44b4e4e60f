/**
 * `dossier ask --about <run>` in the loopback research world with the strict scripted model: a
 * follow-up answered by the run's evidence makes no search and cites the report's own reference
 * numbers (the parent's sources recorded as its own, no new one); one the evidence cannot answer
 * searches and cites the new source under a new number; bad input is refused before any model
 * call. Checked against the child run's event log.
 */

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { dossierInWorld } from "../../../test/research/world-cli.ts";
import type { DossierEvent } from "../../core/events.ts";
import { type Source, sourceLocator } from "../../core/source.ts";
import { openSqliteStore } from "../../store/sqlite-store.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** `dossier <args>` in the world. */
const dossier = dossierInWorld;

async function eventsOf(w: ResearchWorld, runId: string): Promise<DossierEvent[]> {
  const store = openSqliteStore({ home: w.home });
  try {
    return await store.events.list(runId);
  } finally {
    await store.close();
  }
}

/** The parent: `dossier ask` (one plan, two steps, one page read), whose report cites page 2 as [1]. */
const PARENT = { "smtl-plan": 1, "smtl-step": 2, reader: 1 } as const;

describe("dossier ask --about", () => {
  it("answers from the run's evidence with its report's numbers, and searches only when that evidence does not suffice", async () => {
    world = await startResearchWorld({ expectCalls: PARENT });
    const parent = await dossier(["ask", "Which topic grew by 11 percent in 2025?"], world);
    expect(parent.code).toBe(0);
    const parentId = /run (\S+) \(dossier runs events/.exec(parent.stdout)![1]!;
    const parentEvents = await eventsOf(world, parentId);
    const report = parentEvents.find((e) => e.type === "report-ready");
    const md = readFileSync((report as { paths: string[] }).paths.find((p) => p.endsWith(".md"))!, "utf8");
    const numberOfPage2 = Number(/^(\d+)\. Page 2\. /m.exec(md)![1]);

    // In the evidence: one writer call, no search; the report's number for page 2.
    world.script.expectCalls({ ...PARENT, "follow-up": 1 });
    const inside = await dossier(["ask", "--about", parentId, "What else about topic 2?", "--json"], world);
    expect(inside.stderr).toBe("");
    expect(inside.code).toBe(0);
    const a = JSON.parse(inside.stdout.trim());
    expect(a).toMatchObject({ about: parentId, fromRunEvidence: true, searches: [], status: "completed" });
    expect(a.answer).toBe(`Topic 2 is covered by the evidence [${numberOfPage2}].`);
    expect(a.citations.map((c: { number: number }) => c.number)).toEqual([numberOfPage2]);
    const childEvents = await eventsOf(world, a.runId);
    expect(childEvents.filter((e) => e.type === "tool-start")).toEqual([]);
    // Its source-add events are the parent's sources, copied (none new): its citations resolve there.
    const locators = (events: DossierEvent[]) =>
      events.flatMap((e) => (e.type === "source-add" ? [sourceLocator(e.source as Source)] : []));
    expect(locators(childEvents)).toEqual(locators(parentEvents));
    const ready = childEvents.find((e) => e.type === "answer-ready") as { answer: string } | undefined;
    expect(ready?.answer).toBe(a.answer);
    // The child run names its parent in its stored options.
    const shown = await dossier(["runs", "show", a.runId, "--json"], world);
    expect(JSON.parse(shown.stdout.trim())).toMatchObject({ strategy: "follow-up", about: parentId });

    // Not in the evidence: a topic no passage of the parent mentions.
    const mentioned = (n: number) =>
      parentEvents.some(
        (e) =>
          e.type === "evidence-add" && new RegExp(`\\btopic ${n}\\b`, "i").test(JSON.stringify(e.evidence)),
      );
    const absent = [...Array(19).keys()].map((i) => i + 2).find((n) => !mentioned(n))!;
    world.script.expectCalls({ ...PARENT, "follow-up": 3 });
    const outside = await dossier(
      ["ask", "--about", parentId, `What about topic ${absent}?`, "--json"],
      world,
    );
    expect(outside.code).toBe(0);
    const b = JSON.parse(outside.stdout.trim());
    expect(b.fromRunEvidence).toBe(false);
    expect(b.searches).toEqual([{ query: `topic ${absent - 1}`, ok: true, results: 5 }]);
    const maxParentNumber = Math.max(...[...md.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])));
    expect(b.citations).toHaveLength(1);
    expect(b.citations[0].number).toBe(maxParentNumber + 1);
    expect(b.citations[0].locator).toMatch(new RegExp(`/page/${absent}$`));
    expect(b.answer).toBe(`Topic ${absent} is covered by the evidence [${maxParentNumber + 1}].`);
    const searched = await eventsOf(world, b.runId);
    expect(searched.filter((e) => e.type === "tool-start")).toHaveLength(1);
    expect(searched.filter((e) => e.type === "source-add").length).toBeGreaterThan(0);

    // The parent lists its follow-ups.
    const parentShown = await dossier(["runs", "show", parentId, "--json"], world);
    expect(JSON.parse(parentShown.stdout.trim()).followUps.map((f: { id: string }) => f.id)).toEqual([
      a.runId,
      b.runId,
    ]);
    const parentText = await dossier(["runs", "show", parentId], world);
    expect(parentText.stdout).toContain(`follow-up ${b.runId} completed: What about topic ${absent}?`);
  });

  it("refuses an unknown run and a run that did not complete before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    const unknown = await dossier(["ask", "--about", "nosuchrun", "What about topic 2?"], world);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/NOT_FOUND/);
    const store = openSqliteStore({ home: world.home });
    try {
      await store.runs.create({
        id: "r-failed-1",
        query: "q",
        strategy: "smtl",
        options: {},
        createdAt: new Date(0).toISOString(),
      });
    } finally {
      await store.close();
    }
    const running = await dossier(["ask", "--about", "r-failed-1", "What about topic 2?"], world);
    expect(running.code).not.toBe(0);
    expect(running.stderr).toMatch(/CONFLICT.*follow-up questions are about completed runs/);
    const flags = await dossier(["ask", "--about", "r-failed-1", "q", "--max-searches", "9"], world);
    expect(flags.stderr).toMatch(/--max-searches must be an integer from 0 to 5/);
  });
});
