/**
 * An interrupted batch taken up again: a real `dossier batch` process is SIGKILLed while two of
 * its runs are under way, each with model answers already journaled. Running the batch again
 * resumes those runs from their journals (the scripted model answers exactly the calls one
 * uninterrupted batch needs) and starts the question never begun; `dossier runs resume` of one
 * of the killed runs adds its article to the batch's articles file; no run of the batch is left
 * interrupted, and every question has one run and one article.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";
import { killAfterAnswers, modelGate, worldEnv } from "../../test/research/killed-run.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { citedNumbers } from "../core/citations.ts";
import type { RunRecord } from "../core/run.ts";
import { raceArticleSchema } from "../eval/race/records.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** What one uninterrupted mams run asks the model. */
const PER_QUESTION = { "mams-search": 2, "mams-state": 1, "mams-report": 1 };
const QUESTIONS = [
  "How are battery prices changing?",
  "How is grid storage growing?",
  "What limits heat pumps?",
];

/** A world, its question file, and a `dossier batch` killed after 3 answers (two runs under way). */
async function killedBatch() {
  const gate = modelGate(() => 20);
  world = await startResearchWorld({
    hold: gate.hold,
    expectCalls: Object.fromEntries(
      Object.entries(PER_QUESTION).map(([role, n]) => [role, n * QUESTIONS.length]),
    ),
  });
  const file = join(world.home, "questions.jsonl");
  writeFileSync(file, QUESTIONS.map((prompt, i) => `${JSON.stringify({ id: i + 1, prompt })}\n`).join(""));
  const out = join(world.home, "articles.jsonl");
  const argv = ["batch", file, "--strategy", "mams", "--concurrency", "2", "--out", out, "--json"];
  expect(await killAfterAnswers(world, gate, argv, 3)).toBeNull();
  const runs = await storedRuns(world);
  // Two runs were under way, each with a journaled answer; the third question never started.
  expect(runs).toHaveLength(2);
  expect(runs.map((r) => r.status)).toEqual(["running", "running"]);
  return { world, gate, argv, out, killed: runs };
}

async function storedRuns(w: ResearchWorld): Promise<RunRecord[]> {
  const store = openSqliteStore({ home: w.home });
  try {
    return [...(await store.runs.list({ limit: 100 }))].sort((a, b) => a.query.localeCompare(b.query));
  } finally {
    await store.close();
  }
}

function articles(out: string) {
  return readFileSync(out, "utf8")
    .trim()
    .split("\n")
    .map((l) => raceArticleSchema.parse(JSON.parse(l)));
}

/** One completed run per question, none left interrupted; the model answered one batch's worth. */
async function expectFinishedOnce(w: ResearchWorld) {
  const runs = await storedRuns(w);
  expect(runs.map((r) => [r.query, r.status])).toEqual([...QUESTIONS].sort().map((q) => [q, "completed"]));
  expect(w.script.counts["mams-search"]).toBe(PER_QUESTION["mams-search"] * QUESTIONS.length);
  expect(w.script.counts["mams-state"] + w.script.counts["mams-report"]).toBe(2 * QUESTIONS.length);
}

describe("an interrupted batch run again", () => {
  it("resumes the killed runs from their journals instead of starting them again", async () => {
    const { world: w, argv, out, killed } = await killedBatch();
    const again = await runCliInProcess(argv, { cwd: w.home, env: worldEnv(w) });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    const summary = JSON.parse(again.stdout) as {
      done: number;
      items: { id: number; runId: string; status: string; resumed?: boolean }[];
    };
    expect(summary.done).toBe(3);
    // The killed runs are taken up under their own ids; the third question starts afresh.
    const byId = new Map(summary.items.map((i) => [i.id, i]));
    for (const run of killed) {
      const item = byId.get(QUESTIONS.indexOf(run.query) + 1)!;
      expect(item).toMatchObject({ runId: run.id, status: "completed", resumed: true });
    }
    expect(summary.items.filter((i) => !i.resumed)).toHaveLength(1);
    await expectFinishedOnce(w);
    const lines = articles(out);
    expect(lines.map((a) => a.id)).toEqual([1, 2, 3]);
    for (const [i, a] of lines.entries()) {
      expect(a.prompt).toBe(QUESTIONS[i]);
      const numbers = citedNumbers(a.article);
      expect(numbers.length).toBeGreaterThan(0);
      for (const n of numbers) expect(a.article).toMatch(new RegExp(`^${n}\\. `, "m"));
    }
  }, 90_000);

  it("`runs resume` of a killed batch run adds its article; the batch then runs only the rest", async () => {
    const { world: w, argv, out, killed } = await killedBatch();
    const [first] = killed;
    const resumed = await runCliInProcess(["runs", "resume", first!.id, "--json"], {
      cwd: w.home,
      env: worldEnv(w),
    });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ runId: first!.id, status: "completed" });
    const id = QUESTIONS.indexOf(first!.query) + 1;
    expect(articles(out)).toEqual([
      { id, prompt: first!.query, article: expect.stringContaining("## References") },
    ]);

    const again = await runCliInProcess(argv, { cwd: w.home, env: worldEnv(w) });
    expect(again.code).toBe(0);
    const summary = JSON.parse(again.stdout) as {
      done: number;
      skipped: number;
      items: { id: number; status: string; resumed?: boolean; runId?: string }[];
    };
    expect(summary).toMatchObject({ done: 2, skipped: 1 });
    expect(summary.items.find((i) => i.id === id)).toMatchObject({ status: "skipped" });
    expect(summary.items.filter((i) => i.resumed).map((i) => i.runId)).toEqual([killed[1]!.id]);
    await expectFinishedOnce(w);
    expect(articles(out).map((a) => a.id)).toEqual([1, 2, 3]);
  }, 90_000);
});
