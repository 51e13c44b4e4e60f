/**
 * Resume: a CLI research run killed with SIGKILL mid-way is taken up with the same run id; the
 * journal replays every model and tool result it holds (no second request), the event log
 * continues its sequence, and the report is valid.
 */

import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";
import { KILLED_MINDDR_WORLD, killedResearch, worldEnv } from "../../test/research/killed-run.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { citedNumbers } from "../core/citations.ts";
import type { DossierEvent } from "../core/events.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import { previousWallMs } from "./resume.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const chatBody = (r: { body: unknown }) =>
  JSON.stringify((r.body as { messages?: unknown }).messages ?? r.body);

describe("runs resume", () => {
  it("takes up a run killed with SIGKILL: same id, no journaled step requested again, seq continuous", async () => {
    world = await startResearchWorld(KILLED_MINDDR_WORLD);
    const env = worldEnv(world);
    // Kill it once a few model answers are in the journal.
    const w = world;
    await killedResearch(w, { ready: () => w.model.requests.length >= 6, maxWaitMs: 45_000 });
    const firstPhase = world.model.requests.length;
    const firstSearches = world.search.requests.length;
    expect(firstPhase).toBeGreaterThanOrEqual(6);

    const store = openSqliteStore({ home: world.home });
    const [run] = await store.runs.list();
    const before: DossierEvent[] = await store.events.list(run!.id);
    await store.close();
    expect(run!.status).toBe("running");
    const journaledLlm = new Set(
      before.filter((e) => e.type === "llm-end" && e.ok).map((e) => (e as { key: string }).key),
    );
    expect(journaledLlm.size).toBeGreaterThan(0);
    const answered = new Set(world.model.requests.slice(0, firstPhase).map(chatBody));

    const resumed = await runCliInProcess(["runs", "resume", run!.id.slice(0, 14), "--json"], {
      cwd: world.home,
      env,
    });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout.trim()) as {
      runId: string;
      status: string;
      reportPaths: string[];
    };
    expect(summary).toMatchObject({ runId: run!.id, status: "completed" });

    const after = openSqliteStore({ home: world.home });
    const events = await after.events.list(run!.id);
    const record = (await after.runs.get(run!.id))!;
    await after.close();
    // The log continues: seq 1..n without a gap, one run-resume after the last event of the first attempt.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const resume = events.find((e) => e.type === "run-resume")!;
    expect(resume.seq).toBe(before.length + 1);
    expect(resume).toMatchObject({ previousStatus: "interrupted" });
    const again = events.slice(before.length);
    // No model call the journal held was made again: replays carry the journaled keys, live calls others.
    for (const e of again) {
      if (e.type === "llm-start") expect(journaledLlm.has((e as { key: string }).key)).toBe(false);
    }
    // Every journaled call is replayed, but page reads: a finished crawl_page is replayed whole by
    // the gateway's journal, so the reader's model call inside it is not even replayed.
    const replayed = new Set(
      again
        .filter((e) => e.type === "llm-end" && (e as { replayed?: boolean }).replayed)
        .map((e) => (e as { key: string }).key),
    );
    const journaledNonReader = before.filter(
      (e) => e.type === "llm-end" && e.ok && (e as { role: string }).role !== "reader",
    );
    for (const e of journaledNonReader) expect(replayed.has((e as { key: string }).key)).toBe(true);
    const replayedReads = again.filter((e) => e.type === "tool-end" && e.tool === "crawl_page" && e.cached);
    expect(replayedReads.length).toBeGreaterThanOrEqual(
      before.filter((e) => e.type === "llm-end" && e.ok && (e as { role: string }).role === "reader").length,
    );
    // …and the model server saw no second request for an answered prompt.
    const second = world.model.requests.slice(firstPhase).map(chatBody);
    expect(second.length).toBe(again.filter((e) => e.type === "llm-start").length);
    // Only a call that was in flight at the kill (asked, never answered) may be asked again.
    const inFlight =
      before.filter((e) => e.type === "llm-start").length - before.filter((e) => e.type === "llm-end").length;
    expect(second.filter((body) => answered.has(body)).length).toBeLessThanOrEqual(inFlight);
    expect(world.search.requests.length).toBeGreaterThanOrEqual(firstSearches);
    // A valid report whose every citation resolves; the run's budget counted the earlier wall time.
    expect(record.status).toBe("completed");
    const markdown = await import("node:fs").then((fs) => fs.readFileSync(summary.reportPaths[0]!, "utf8"));
    const numbers = citedNumbers(markdown);
    expect(numbers.length).toBeGreaterThan(0);
    for (const n of numbers) expect(markdown).toMatch(new RegExp(`^${n}\\. `, "m"));
    expect(previousWallMs(before)).toBeGreaterThan(0);
  }, 120_000);

  it("refuses to resume a completed run or one still running here", async () => {
    world = await startResearchWorld({ subtasks: 3, expectCalls: {} });
    const env = worldEnv(world);
    const store = openSqliteStore({ home: world.home });
    store.runs.create({
      id: "r-done",
      query: "q",
      strategy: "minddr",
      options: {},
      createdAt: new Date().toISOString(),
    });
    store.runs.update("r-done", { updatedAt: new Date().toISOString(), status: "completed" });
    store.close();
    const r = await runCliInProcess(["runs", "resume", "r-done"], { cwd: world.home, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CONFLICT.*already completed/);
    const missing = await runCliInProcess(["runs", "resume", "nope"], { cwd: world.home, env });
    expect(missing.stderr).toMatch(/NOT_FOUND/);
  });
});
