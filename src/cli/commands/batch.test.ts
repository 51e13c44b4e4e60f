/**
 * `dossier batch` in the closed research world: four DeepResearch Bench prompts researched
 * with the mams strategy, two at a time, into a raw-data JSONL whose articles each carry a
 * References section that every citation number resolves to; a second invocation finds them
 * finished and runs nothing.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { benchmarkPath, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { dossierInWorld } from "../../../test/research/world-cli.ts";
import { citedNumbers } from "../../core/citations.ts";
import { raceArticleSchema } from "../../eval/race/records.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const queries = benchmarkPath("deepresearch_bench", "data", "prompt_data", "query.jsonl");

/** The article's body and its numbered reference entries. */
function split(article: string) {
  const at = /^## (References|参考文献)$/m.exec(article);
  if (!at) return { body: article, refs: [] as number[] };
  const refs = [
    ...article.slice(at.index).matchAll(/^(\d+)\. .+<http:\/\/127\.0\.0\.1:\d+\/page\/\d+>/gm),
  ].map((m) => Number(m[1]));
  return { body: article.slice(0, at.index), refs };
}

describe("dossier batch", () => {
  it("checks the settings once before any run: no model is bad configuration (exit 2), nothing written", async () => {
    const home = mkdtempSync(join(tmpdir(), "dossier-batch-cli-"));
    try {
      writeFileSync(join(home, "q.csv"), "query\nFirst question here\nSecond question here\n");
      const run = await runCliInProcess(["batch", "q.csv", "--strategy", "mams"], {
        cwd: home,
        env: { HOME: home, DOSSIER_HOME: join(home, ".dossier") },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/MODEL_NOT_CONFIGURED/);
      expect(existsSync(join(home, "q-mams.jsonl"))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("dossier batch in the research world", () => {
  it.skipIf(!haveBenchmarkFile(queries, "dossier batch over DeepResearch Bench prompts"))(
    "writes four mams articles whose citations all resolve to their References, and resumes to nothing",
    async () => {
      world = await startResearchWorld({
        expectCalls: { "mams-search": 4 * 2, "mams-state": 4, "mams-report": 4 },
      });
      const file = join(world.home, "drb.jsonl");
      writeFileSync(file, `${readFileSync(queries, "utf8").split("\n").slice(0, 4).join("\n")}\n`);
      const args = ["batch", file, "--strategy", "mams", "--concurrency", "2", "--out", "out/articles.jsonl"];
      const run = await dossierInWorld(args, world);
      expect(run.stderr).toContain("batch: 4/4 — 4 done, 0 failed, 0 running");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("4 finished, 0 failed, 0 skipped (finished before) of 4");

      const lines = readFileSync(join(world.home, "out", "articles.jsonl"), "utf8")
        .trim()
        .split("\n");
      const articles = lines.map((l) => raceArticleSchema.parse(JSON.parse(l)));
      const prompts = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(articles.map((a) => [a.id, a.prompt])).toEqual(prompts.map((p) => [p.id, p.prompt]));
      for (const a of articles) {
        const { body, refs } = split(a.article);
        const numbers = citedNumbers(body);
        expect(numbers.length).toBeGreaterThan(0);
        expect(refs).toEqual(Array.from({ length: refs.length }, (_, i) => i + 1));
        expect(numbers).toEqual(refs);
      }
      expect(world.script.maxInFlight["mams-search"]).toBeLessThanOrEqual(2);

      const again = await dossierInWorld([...args, "--json"], world);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout.trim())).toMatchObject({
        strategy: "mams",
        done: 0,
        skipped: 4,
        failed: 0,
      });
    },
  );
});
