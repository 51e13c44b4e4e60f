/**
 * Plan review end to end on the offline strategy (its facets are its plan; no model needed): a
 * run with `reviewPlan` stops after its plan in a durable `awaiting-review` status; a new
 * Dossier over the same store (a restart) finds it there and answers it; the run then searches
 * exactly the facets of the edited plan. A rejection ends it cancelled, an unanswered review
 * fails it with REVIEW_TIMEOUT, and a bad edit changes nothing.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../core/clock.ts";
import type { DossierError } from "../core/errors.ts";
import type { DossierEvent, EventOf } from "../core/events.ts";
import { createDossier, type Dossier } from "./dossier.ts";

const dirs: string[] = [];
const open: Dossier[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const QUESTION = "How do heat pumps perform in cold climates?";

/** A project with notes whose distinctive terms become the offline strategy's facets. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), "dossier-review-"));
  dirs.push(root);
  const docs = join(root, "notes");
  mkdirSync(docs);
  const notes: Record<string, string> = {
    "defrost.md":
      "# Defrost\n\nHeat pumps in cold climates run defrost cycles; defrost cycles cost energy in cold climates.\nDefrost controls in heat pumps reduce defrost losses.\n",
    "capacity.md":
      "# Capacity\n\nHeat pump capacity drops in cold climates; capacity at minus 15 degrees stays above half.\nCold-climate capacity ratings compare heat pumps.\n",
    "grid.md":
      "# Grid\n\nWinter grid peaks rise where heat pumps replace boilers in cold climates.\nGrid operators plan for heat pump peaks.\n",
    "noise.md":
      "# Noise\n\nOutdoor units of heat pumps make noise; noise limits apply in cold climates too.\nNoise from defrost fans is brief.\n",
  };
  for (const [name, text] of Object.entries(notes)) writeFileSync(join(docs, name), text);
  return root;
}

/** A clock `offset` ahead of the system's (set by the test). */
function shiftedClock(): Clock & { offset: number } {
  const clock = { offset: 0, now: () => Date.now() + clock.offset, sleep: systemClock.sleep };
  return clock;
}

function dossierAt(root: string, clock?: Clock): Dossier {
  const dossier = createDossier({
    env: { DOSSIER_HOME: join(root, ".dossier") },
    cwd: root,
    ...(clock ? { clock } : {}),
  });
  open.push(dossier);
  return dossier;
}

const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

/** The facets the run searched: the queries of its local searches after the first. */
function searchedFacets(events: DossierEvent[]): string[] {
  return ofType(events, "tool-start")
    .map((e) => (e.args as { query?: string }).query ?? "")
    .filter((q) => q !== QUESTION)
    .map((q) => q.slice(QUESTION.length + 1));
}

async function pausedRun(root: string, clock?: Clock, minutes?: number) {
  const dossier = dossierAt(root, clock);
  const result = await dossier.research(QUESTION, {
    docs: "notes",
    reviewPlan: true,
    ...(minutes ? { reviewTimeoutMinutes: minutes } : {}),
  }).done;
  return { dossier, result };
}

describe("plan review (offline strategy)", () => {
  it("stops after the plan, keeps it over a restart, and runs exactly the edited plan", async () => {
    const root = project();
    const { dossier, result } = await pausedRun(root);
    expect(result.status).toBe("awaiting-review");
    expect(result.stopReason).toBe("awaiting-review");
    expect(result.report).toBeNull();
    expect(result.record.finishedAt).toBeNull();
    const proposed = result.plan!;
    expect(proposed.strategy).toBe("offline");
    expect(proposed.kind).toBe("facets");
    expect(proposed.items.length).toBeGreaterThanOrEqual(2);
    const before = await dossier.runs.events(result.runId);
    // Nothing was researched after the plan: only the first search ran.
    expect(searchedFacets(before)).toEqual([]);
    expect(before.at(-2)).toMatchObject({ type: "plan-review", plan: proposed });
    expect(before.at(-1)).toMatchObject({ type: "run-end", status: "awaiting-review" });
    await dossier.close();

    // A restart: a new Dossier over the same store finds the run where it stopped.
    const again = dossierAt(root);
    expect((await again.runs.get(result.runId)).status).toBe("awaiting-review");
    const pending = await again.runs.plan(result.runId);
    expect(pending).toMatchObject({ stage: "pending", plan: proposed, changes: null });
    const waits = Date.parse(pending!.deadline) - Date.parse(pending!.requestedAt);
    expect(waits).toBeGreaterThan(1440 * 60_000 - 1000);
    expect(waits).toBeLessThanOrEqual(1440 * 60_000);

    // Remove the second facet, add one, reword the first.
    const [first, second, ...rest] = proposed.items;
    const edited = {
      items: [{ id: first!.id, title: "defrost" }, ...rest, { title: "noise limits" }],
    };
    const answered = await again.runs.review(result.runId, { action: "edit", plan: edited });
    expect(answered.record.status).toBe("interrupted");
    const done = await answered.handle!.done;
    expect(done.status).toBe("completed");
    const events = await again.runs.events(result.runId);
    const executed = ["defrost", ...rest.map((i) => i.title), "noise limits"];
    expect(searchedFacets(events)).toEqual(executed);
    expect(ofType(events, "task-framed").at(-1)!.spec).toMatchObject({ facets: executed });
    const reviewed = ofType(events, "plan-reviewed");
    expect(reviewed).toHaveLength(1);
    expect(reviewed[0]).toMatchObject({
      action: "edit",
      changes: {
        added: ["new-1"],
        removed: [second!.id],
        reworded: first!.title === "defrost" ? [] : [first!.id],
      },
    });
    expect(reviewed[0]!.plan!.items.map((i) => i.title)).toEqual(executed);
    // The review is part of the run's trail; the attempt after it is a resume.
    const types = events.map((e) => e.type);
    expect(types.indexOf("plan-reviewed")).toBeGreaterThan(types.indexOf("plan-review"));
    expect(ofType(events, "run-resume")).toHaveLength(1);
    expect(ofType(events, "run-end").map((e) => e.status)).toEqual(["awaiting-review", "completed"]);
    expect(await again.runs.plan(result.runId)).toMatchObject({
      stage: "edited",
      plan: { items: reviewed[0]!.plan!.items },
    });
    // Answered once: a second answer is refused.
    await expect(again.runs.review(result.runId, { action: "approve" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  }, 30_000);

  it("approving runs the proposed plan as it was shown", async () => {
    const root = project();
    const { dossier, result } = await pausedRun(root);
    const answered = await dossier.runs.review(result.runId, { action: "approve" });
    expect((await answered.handle!.done).status).toBe("completed");
    const events = await dossier.runs.events(result.runId);
    expect(searchedFacets(events)).toEqual(result.plan!.items.map((i) => i.title));
    expect(ofType(events, "plan-reviewed")[0]).toMatchObject({ action: "approve" });
  }, 30_000);

  it("refuses a bad edit with a clear error and changes nothing", async () => {
    const root = project();
    const { dossier, result } = await pausedRun(root);
    const seq = (await dossier.runs.events(result.runId)).length;
    const refused = async (answer: unknown) => {
      const error = (await dossier.runs
        .review(result.runId, answer)
        .catch((e: unknown) => e)) as DossierError;
      expect(error.code).toBe("INPUT_INVALID");
      return error.message;
    };
    expect(await refused({ action: "edit", plan: { items: [{ id: "F1", title: "" }] } })).toMatch(
      /items\.0\.title: an item's title is empty/,
    );
    expect(await refused({ action: "edit", plan: { items: [{ id: "F99", title: "x" }] } })).toMatch(
      /no item "F99"/,
    );
    expect(
      await refused({
        action: "edit",
        plan: { items: Array.from({ length: 13 }, (_, i) => ({ title: `f${i}` })) },
      }),
    ).toMatch(/1 to 12 facets; this one has 13/);
    expect(await refused({ action: "approved" })).toMatch(/review answer is not valid/);
    expect((await dossier.runs.get(result.runId)).status).toBe("awaiting-review");
    expect(await dossier.runs.events(result.runId)).toHaveLength(seq);
    // Nor can a plain resume take it up.
    await expect(dossier.runs.resume(result.runId).done).rejects.toMatchObject({ code: "CONFLICT" });
  }, 30_000);

  it("a rejected plan ends the run cancelled with the reason, and nothing more is researched", async () => {
    const root = project();
    const { dossier, result } = await pausedRun(root);
    const answered = await dossier.runs.review(result.runId, { action: "reject", reason: "too narrow" });
    expect(answered.handle).toBeNull();
    expect(answered.record).toMatchObject({ status: "cancelled", stopReason: "plan-rejected", error: null });
    expect(answered.record.finishedAt).not.toBeNull();
    const events = await dossier.runs.events(result.runId);
    expect(events.slice(-2)).toMatchObject([
      { type: "plan-reviewed", action: "reject", reason: "too narrow" },
      { type: "run-end", status: "cancelled", stopReason: "plan-rejected" },
    ]);
    expect(searchedFacets(events)).toEqual([]);
    expect(await dossier.runs.plan(result.runId)).toMatchObject({ stage: "rejected", reason: "too narrow" });
    // Cancelling a run awaiting review rejects its plan too.
    const other = await pausedRun(root);
    expect(await other.dossier.runs.requestCancel(other.result.runId, "not now")).toBe(true);
    expect(await other.dossier.runs.get(other.result.runId)).toMatchObject({
      status: "cancelled",
      stopReason: "plan-rejected",
    });
  }, 30_000);

  it("an unanswered review times out: the run fails with REVIEW_TIMEOUT, never approved", async () => {
    const root = project();
    const clock = shiftedClock();
    const { dossier, result } = await pausedRun(root, clock, 30);
    clock.offset = 29 * 60_000;
    expect((await dossier.runs.get(result.runId)).status).toBe("awaiting-review");
    clock.offset = 31 * 60_000;
    const record = await dossier.runs.get(result.runId);
    expect(record).toMatchObject({ status: "failed", stopReason: "review-timeout" });
    expect(record.error).toMatchObject({ code: "REVIEW_TIMEOUT" });
    expect(record.error!.message).toMatch(/not reviewed within 30 minute/);
    const events = await dossier.runs.events(result.runId);
    expect(events.slice(-2)).toMatchObject([
      { type: "plan-reviewed", action: "timeout" },
      { type: "run-end", status: "failed", error: { code: "REVIEW_TIMEOUT" } },
    ]);
    expect(searchedFacets(events)).toEqual([]);
    await expect(dossier.runs.review(result.runId, { action: "approve" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  }, 30_000);

  it("an answer after the deadline is refused and ends the run as timed out", async () => {
    const root = project();
    const clock = shiftedClock();
    const { dossier, result } = await pausedRun(root, clock, 5);
    clock.offset = 6 * 60_000;
    const error = (await dossier.runs
      .review(result.runId, { action: "approve" })
      .catch((e: unknown) => e)) as DossierError;
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toMatch(/timed out/);
    expect((await dossier.store.runs.get(result.runId))!.error).toMatchObject({ code: "REVIEW_TIMEOUT" });
  }, 30_000);
});
