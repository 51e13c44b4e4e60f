/**
 * `dossier ask` in-process against the closed research world: the smtl strategy answers with
 * citations to passages retrieved in the run, several tool calls per step, and figures.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BENCHMARKS_DIR, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { type CliOutcome, runCliInProcess } from "../../../test/cli-io.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { loadXbench, xbenchPath } from "../../eval/deepsearch/xbench.ts";

const HAVE_XBENCH = haveBenchmarkFile(
  xbenchPath(BENCHMARKS_DIR, "2505"),
  "dossier ask on an xbench-DeepSearch question",
);

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function dossier(args: string[], w: ResearchWorld, isTty = false): Promise<CliOutcome> {
  return runCliInProcess(args, {
    cwd: w.home,
    isTty,
    env: {
      HOME: w.home,
      DOSSIER_HOME: w.home,
      DOSSIER_MODEL: "openai-compatible:fake-model",
      DOSSIER_BASE_URL: w.model.url,
      DOSSIER_API_KEY: "sk-test",
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: w.search.baseUrl("searxng"),
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    },
  });
}

/** One plan, two steps (the second answers), one page read. */
const ONE_ANSWER = { "smtl-plan": 1, "smtl-step": 2, reader: 1 } as const;

describe("dossier ask", () => {
  it.skipIf(!HAVE_XBENCH)(
    "answers an xbench-DeepSearch question with citations and more than one tool call per step",
    async () => {
      const [question] = loadXbench(BENCHMARKS_DIR, "2505");
      world = await startResearchWorld({ expectCalls: ONE_ANSWER });
      const run = await dossier(["ask", question!.question, "--json"], world);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const lines = run.stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      const out = JSON.parse(lines[0]!);
      expect(Object.keys(out)).toEqual([
        "answer",
        "citations",
        "evidence",
        "steps",
        "toolCalls",
        "toolCallsPerStep",
        "tokens",
        "wallMs",
        "stopReason",
      ]);
      expect(out.answer).toMatch(/^Topic \d+ \[1\]/);
      expect(out.citations.length).toBeGreaterThanOrEqual(1);
      expect(out.toolCallsPerStep).toBeGreaterThan(1);
      expect(out).toMatchObject({ steps: 2, toolCalls: 5, stopReason: "answered" });
      expect(out.tokens.input).toBeGreaterThan(0);
      // Each cited passage is an excerpt of a page served in this world, read by crawl_page.
      for (const e of out.evidence) {
        expect(e.retrievedBy.tool).toBe("read_page");
        expect(e.locator).toMatch(/\/page\/\d+$/);
        expect(e.text).toMatch(/topic \d+/i);
      }
    },
  );

  it("prints the answer, its citations with their passages, and the figures", async () => {
    world = await startResearchWorld({ expectCalls: ONE_ANSWER });
    const run = await dossier(["ask", "Which topic grew by 11 percent in 2025?"], world, true);
    expect(run.code).toBe(0);
    // On a terminal, a progress line shows the steps as they run, and is cleared at the end.
    expect(run.stderr).toContain("searching (step 1: 3 calls)");
    expect(run.stderr).toContain("searching (step 2: 2 calls)");
    expect(run.stderr.endsWith("\r\x1b[2K")).toBe(true);
    expect(run.stdout).toMatch(/^Answer: Topic 2 \[1\]/);
    expect(run.stdout).toContain("verified: every goal of the plan is backed by evidence");
    expect(run.stdout).toMatch(/\[1\] Page 2 — http:\/\/127\.0\.0\.1:\d+\/page\/2/);
    expect(run.stdout).toMatch(/E\d+ \(read_page\): "Topic 2 saw measured growth/);
    expect(run.stdout).toMatch(
      /2 steps, 5 tool calls \(2\.50 per step\), \d+\+\d+ tokens, [\d.]+ s; stop: answered/,
    );
  });

  it("refuses bad smtl options before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    const run = await dossier(["ask", "Which topic grew?", "--refine-every", "0"], world);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--refine-every must be a positive integer/);
  });

  it("runs as a research strategy too: dossier research --strategy smtl --mode answer writes the short cited report", async () => {
    world = await startResearchWorld({ expectCalls: ONE_ANSWER });
    const run = await dossier(
      [
        "research",
        "Which topic grew by 11 percent in 2025?",
        "--strategy",
        "smtl",
        "--mode",
        "answer",
        "--json",
        "--out",
        "answer",
      ],
      world,
    );
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.trim());
    expect(summary).toMatchObject({ strategy: "smtl", status: "completed", stopReason: "answered" });
    expect(summary.citations).toBeGreaterThanOrEqual(1);
    const md = readFileSync(join(world.home, "answer.md"), "utf8");
    expect(md).toMatch(/^# Which topic grew by 11 percent in 2025\?\n\nTopic 2 \[1\]/);
    expect(md).toMatch(/## Goals\n\n- G1 \(in-progress\) Identify the topic/);
    expect(md).toMatch(/## References\n\n1\. Page 2/);
    const estimate = await dossier(
      ["research", "Which topic grew?", "--strategy", "smtl", "--estimate", "--json"],
      world,
    );
    expect(estimate.code).toBe(0);
    expect(JSON.parse(estimate.stdout).strategy).toBe("smtl");
  });
});
