/**
 * Batch runs over a question file with a small model-free strategy: a sliding window of at
 * most C runs, one failing run that stops nothing else, DeepResearch Bench raw-data JSONL out,
 * a re-run that runs only what did not finish, and the question files as the benchmarks ship
 * them (DeepResearch Bench `query.jsonl`, DeepConsult `queries.csv`).
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { benchmarkPath, haveBenchmarkFile } from "../../test/benchmarks.ts";
import { createOutline } from "../core/outline.ts";
import { raceArticleSchema } from "../eval/race/records.ts";
import { assembleReport } from "../kit/report-assembly.ts";
import { indexNotes } from "../server/test-fixtures.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import { formatBatchSummary, parseQuestions, readQuestions, runBatch } from "./batch.ts";
import { createDossier, type Dossier } from "./dossier.ts";

const roots: string[] = [];
const dossiers: Dossier[] = [];
afterEach(async () => {
  await Promise.all(dossiers.splice(0).map((d) => d.close()));
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A strategy that waits a little, counts the runs under way, and fails on questions in `failing`. */
function slowStrategy(failing: Set<string>, live: { now: number; max: number; runs: string[] }) {
  const definition: StrategyDefinition<Record<string, never>> = {
    name: "slow",
    description: "waits, then writes a one-line report (tests)",
    optionsSchema: z.object({}).strict() as z.ZodType<Record<string, never>>,
    roles: [],
    capabilities: { needsModel: false, web: false, local: true },
    estimate: () => ({ llm: [], tools: [0, 0] }),
    async run(ctx, input) {
      live.now++;
      live.max = Math.max(live.max, live.now);
      live.runs.push(ctx.query);
      try {
        await new Promise((r) => setTimeout(r, 30));
        if (failing.has(ctx.query)) throw new Error(`the source for "${ctx.query}" is down`);
        const report = assembleReport(ctx, {
          title: ctx.query,
          outline: createOutline([{ title: "Answer", plan: "" }]),
          language: input.language,
          parts: [{ text: `## Answer\n\nAn answer to ${ctx.query}.`, allowed: new Set() }],
          stopReason: "completed",
        });
        return { stopReason: "completed", report };
      } finally {
        live.now--;
      }
    },
  };
  return definition as StrategyDefinition<never>;
}

async function project(failing: Set<string>) {
  const root = mkdtempSync(join(tmpdir(), "dossier-batch-"));
  roots.push(root);
  await indexNotes(root, join(root, ".dossier"));
  const live = { now: 0, max: 0, runs: [] as string[] };
  const open = () => {
    const dossier = createDossier({
      env: { DOSSIER_HOME: join(root, ".dossier") },
      cwd: root,
      strategies: [slowStrategy(failing, live)],
    });
    dossiers.push(dossier);
    return dossier;
  };
  return { root, live, open };
}

describe("runBatch", () => {
  it("runs 6 questions 2 at a time; a failure stops nothing; a re-run runs only the failed one", async () => {
    const questions = parseQuestions(
      Array.from({ length: 6 }, (_, i) =>
        JSON.stringify({ id: i + 1, prompt: `Question number ${i + 1}?` }),
      ).join("\n"),
    );
    const failing = new Set(["Question number 3?"]);
    const { root, live, open } = await project(failing);
    const out = join(root, "articles.jsonl");
    const seen: number[] = [];
    // Runs in flight as the batch sees them: handles started and not yet settled.
    const handles = { now: 0, max: 0 };
    const dossier = open();
    const counting = {
      research: (question: string, options?: Parameters<Dossier["research"]>[1]) => {
        const handle = dossier.research(question, options);
        handles.max = Math.max(handles.max, ++handles.now);
        const settle = () => handles.now--;
        void handle.done.then(settle, settle);
        return handle;
      },
    };
    const first = await runBatch({
      questions,
      out,
      dossier: counting,
      concurrency: 2,
      research: { strategy: "slow", sources: "local", corpus: "notes" },
      onProgress: (p) => seen.push(p.running),
    });
    expect(first.items.map((i) => i.error ?? "")).toEqual([
      "",
      "",
      expect.stringContaining("is down"),
      "",
      "",
      "",
    ]);
    expect(handles.max).toBe(2);
    expect(live.max).toBeLessThanOrEqual(2);
    expect(Math.max(...seen)).toBe(2);
    expect(first.progress).toMatchObject({ total: 6, done: 5, failed: 1, running: 0, skipped: 0 });
    expect(first.items.map((i) => i.status)).toEqual([
      "completed",
      "completed",
      "failed",
      "completed",
      "completed",
      "completed",
    ]);
    expect(first.items[2]!.error).toContain("is down");
    const articles = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => raceArticleSchema.parse(JSON.parse(l)));
    expect(articles.map((a) => a.id)).toEqual([1, 2, 4, 5, 6]);
    for (const a of articles) expect(a.article).toContain(`An answer to ${a.prompt}`);
    const summary = formatBatchSummary(first);
    expect(summary).toMatch(/^3 +failed .*is down/m);
    expect(summary).toContain("5 finished, 1 failed, 0 skipped (finished before) of 6");

    // The source is back: the second invocation runs question 3 only.
    failing.clear();
    live.runs.length = 0;
    const second = await runBatch({
      questions,
      out,
      dossier: open(),
      concurrency: 2,
      research: { strategy: "slow", sources: "local", corpus: "notes" },
    });
    expect(live.runs).toEqual(["Question number 3?"]);
    expect(second.progress).toMatchObject({ done: 1, failed: 0, skipped: 5 });
    const ids = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
    expect(readFileSync(`${out}.state.jsonl`, "utf8").trim().split("\n")).toHaveLength(7);
  });
});

describe("runBatch interrupted", () => {
  it("starts nothing after the signal aborts; the next invocation finishes the rest", async () => {
    const questions = parseQuestions(
      Array.from({ length: 5 }, (_, i) =>
        JSON.stringify({ id: `q${i + 1}`, prompt: `Question number ${i + 1}?` }),
      ).join("\n"),
    );
    const { root, live, open } = await project(new Set());
    const out = join(root, "out", "articles.jsonl");
    const stop = new AbortController();
    const first = await runBatch({
      questions,
      out,
      dossier: open(),
      concurrency: 2,
      research: { strategy: "slow", sources: "local", corpus: "notes" },
      signal: stop.signal,
      onItem: () => stop.abort("enough"),
    });
    expect(live.runs.length).toBeLessThanOrEqual(2);
    expect(first.progress.done).toBeGreaterThanOrEqual(1);
    const finished = first.progress.done;
    live.runs.length = 0;
    const second = await runBatch({
      questions,
      out,
      dossier: open(),
      concurrency: 2,
      research: { strategy: "slow", sources: "local", corpus: "notes" },
    });
    expect(live.runs).toHaveLength(5 - finished);
    expect(second.progress).toMatchObject({ done: 5 - finished, skipped: finished, failed: 0 });
    const ids = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(["q1", "q2", "q3", "q4", "q5"]);
  });
});

describe("question files", () => {
  it("reads JSONL and CSV (quoted fields, no id column: numbered by position)", () => {
    expect(parseQuestions('{"id": 7, "prompt": "a b c", "language": "zh"}\n\n{"query": "d e f"}\n')).toEqual([
      { id: 7, prompt: "a b c", language: "zh" },
      { id: 2, prompt: "d e f" },
    ]);
    expect(parseQuestions('query\n"first, with a comma"\n"second ""quoted"""\n')).toEqual([
      { id: 1, prompt: "first, with a comma" },
      { id: 2, prompt: 'second "quoted"' },
    ]);
    expect(() => parseQuestions('{"id": 1, "prompt": "x y z"}\n{"id": 1, "prompt": "u v w"}')).toThrow(
      /more than once/,
    );
    expect(() => parseQuestions('{"title": "no question"}')).toThrow(/no question/);
  });

  const drb = benchmarkPath("deepresearch_bench", "data", "prompt_data", "query.jsonl");
  it.skipIf(!haveBenchmarkFile(drb, "DeepResearch Bench query.jsonl as a batch question file"))(
    "reads DeepResearch Bench query.jsonl as it is",
    () => {
      const questions = readQuestions(drb);
      expect(questions).toHaveLength(100);
      expect(questions[0]).toMatchObject({ id: 1, language: "zh" });
      expect(new Set(questions.map((q) => q.language))).toEqual(new Set(["zh", "en"]));
    },
  );

  const consult = benchmarkPath("deepconsult", "queries.csv");
  it.skipIf(!haveBenchmarkFile(consult, "DeepConsult queries.csv as a batch question file"))(
    "reads DeepConsult queries.csv as it is",
    () => {
      const questions = readQuestions(consult);
      expect(questions.length).toBeGreaterThan(50);
      expect(questions[0]!.id).toBe(1);
      expect(questions[0]!.prompt).toMatch(/^Evaluate the potential consequences of TikTok bans/);
      for (const q of questions) expect(q.prompt.length).toBeGreaterThan(20);
    },
  );

  it("a missing file is bad input", () => {
    const dir = mkdtempSync(join(tmpdir(), "dossier-batch-"));
    roots.push(dir);
    writeFileSync(join(dir, "empty.jsonl"), "\n");
    expect(() => readQuestions(join(dir, "nope.jsonl"))).toThrow(/not found/);
    expect(() => readQuestions(join(dir, "empty.jsonl"))).toThrow(/no questions/);
  });
});
