/**
 * `dossier eval deepsearch --run` in the closed research world: each question answered by
 * `dossier ask` (smtl) under a concurrency limit, judged, with pass@1, average steps and tool
 * calls per step printed and the runs' figures in the JSONL details.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BENCHMARKS_DIR, haveBenchmarkFile } from "../../../../test/benchmarks.ts";
import { type ResearchWorld, startResearchWorld } from "../../../../test/research/world.ts";
import { dossierInWorld } from "../../../../test/research/world-cli.ts";
import { xbenchPath } from "../../../eval/deepsearch/xbench.ts";

const HAVE_XBENCH = haveBenchmarkFile(
  xbenchPath(BENCHMARKS_DIR, "2505"),
  "dossier eval deepsearch --xbench 2505 --run",
);

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** `dossier <args>` in the world. */
const dossier = dossierInWorld;

/** Calls of `n` questions answered in one parallel step after the plan, then judged. */
const perQuestions = (n: number) => ({
  "smtl-plan": n,
  "smtl-step": 2 * n,
  // Questions reading the same page share the gateway's cache of the page reading.
  reader: [1, n] as const,
  "answer-judge": n,
});

const details = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("dossier eval deepsearch --run", () => {
  it("answers each question with ask, two at a time, judges them and prints pass@1 with steps and tool calls per step", async () => {
    world = await startResearchWorld({ expectCalls: perQuestions(3), latencyMs: 40 });
    const questions = [
      { id: "a", question: "Which topic grew by 12 percent in 2025?", answer: "Topic 2" },
      { id: "b", question: "Which topic grew by 19 percent in 2025?", answer: "Topic 9" },
      { id: "c", question: "Which topic grew by 12 percent, again?", answer: "Topic 2" },
    ];
    writeFileSync(join(world.home, "q.jsonl"), questions.map((q) => JSON.stringify(q)).join("\n"));
    const run = await dossier(
      ["eval", "deepsearch", "--questions", "q.jsonl", "--run", "--parallel", "2", "--out", "d.jsonl"],
      world,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\s*3\s+3\s+2\s+1\s+0\s+66\.7%$/m);
    expect(run.stdout).toContain(
      "runs: 3/3 answered, 2.0 steps per question on average, 2.50 tool calls per step",
    );
    expect(run.stderr).toContain("3/3");
    // At most two questions were under way at once, and two were.
    expect(world.script.maxInFlight["smtl-plan"]).toBe(2);
    const rows = details(join(world.home, "d.jsonl"));
    expect(rows.map((r) => [r.id, r.judgement])).toEqual([
      ["a", "correct"],
      ["b", "incorrect"],
      ["c", "correct"],
    ]);
    for (const r of rows) {
      expect(r.answer).toMatch(/^Topic 2 \[1\]/);
      expect(r.run).toMatchObject({ steps: 2, toolCalls: 5, toolCallsPerStep: 2.5, stopReason: "answered" });
      expect(r.run.citations).toBeGreaterThanOrEqual(1);
    }
  });

  it("refuses --run together with --answers", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    writeFileSync(join(world.home, "q.jsonl"), JSON.stringify({ id: 1, question: "Year?", answer: "1998" }));
    const run = await dossier(
      ["eval", "deepsearch", "--questions", "q.jsonl", "--run", "--answers", "a.jsonl"],
      world,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/exactly one of --answers <file> and --run/);
  });

  it.skipIf(!HAVE_XBENCH)(
    "runs the first xbench question and keeps the question out of the details",
    async () => {
      world = await startResearchWorld({ expectCalls: perQuestions(1) });
      const run = await dossier(
        [
          "eval",
          "deepsearch",
          "--xbench",
          "2505",
          "--benchmarks",
          BENCHMARKS_DIR,
          "--limit",
          "1",
          "--run",
          "--out",
          "d.jsonl",
          "--json",
        ],
        world,
      );
      expect(run.code).toBe(0);
      const summary = JSON.parse(run.stdout.trim());
      expect(summary).toMatchObject({
        questions: 1,
        answered: 1,
        runs: { runs: 1, avgSteps: 2, toolCallsPerStep: 2.5 },
      });
      const [row] = details(join(world.home, "d.jsonl"));
      expect(Object.keys(row)).not.toContain("question");
      expect(Object.keys(row)).not.toContain("reference");
      expect(row.run.steps).toBe(2);
    },
  );
});
