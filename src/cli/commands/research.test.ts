/**
 * `dossier research` and `dossier runs` in-process against loopback servers. Cancelling with
 * Ctrl-C needs a real process and is in ../bin-smoke.test.ts.
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../test/cli-io.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { requestFromFlags } from "./research-flags.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Runs `dossier <args>` in-process in `cwd` with only `env` as its environment. */
function dossier(args: string[], env: Record<string, string>, cwd: string): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, ...env } });
}

function worldEnv(w: ResearchWorld): Record<string, string> {
  return {
    DOSSIER_HOME: w.home,
    DOSSIER_MODEL: "openai-compatible:fake-model",
    DOSSIER_BASE_URL: w.model.url,
    DOSSIER_API_KEY: "sk-test",
    DOSSIER_SEARCH: "searxng",
    SEARXNG_URL: w.search.baseUrl("searxng"),
    DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
  };
}

describe("dossier research", () => {
  it("runs minddr and prints one JSON summary line; runs list/show/events read it back", async () => {
    world = await startResearchWorld({ subtasks: 3 });
    const env = worldEnv(world);
    const run = await dossier(
      [
        "research",
        "How is topic adoption changing?",
        "--strategy",
        "minddr",
        "--json",
        "--format",
        "md,html",
      ],
      env,
      world.home,
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!);
    expect(summary).toMatchObject({
      strategy: "minddr",
      status: "completed",
      stopReason: "completed",
      costUsd: null,
    });
    expect(Object.keys(summary)).toEqual([
      "runId",
      "strategy",
      "status",
      "reportPaths",
      "sources",
      "citations",
      "groundedShare",
      "claims",
      "tokens",
      "costUsd",
      "llmCalls",
      "toolCalls",
      "wallMs",
      "stopReason",
    ]);
    expect(summary.reportPaths).toHaveLength(2);
    // The default claim check (lexical, no model call) prints its shares.
    expect(summary.claims.mode).toBe("check");
    expect(Object.keys(summary.claims.shares)).toEqual(["supported", "partial", "unsupported", "unchecked"]);
    for (const p of summary.reportPaths) expect(existsSync(p)).toBe(true);
    expect(summary.sources).toBeGreaterThan(0);
    expect(summary.tokens.input).toBeGreaterThan(0);

    const list = await dossier(["runs", "list"], env, world.home);
    expect(list.stdout).toContain(summary.runId);
    expect(list.stdout).toContain("completed");
    const show = await dossier(["runs", "show", summary.runId.slice(0, 15)], env, world.home);
    expect(show.stdout).toContain(`run       ${summary.runId}`);
    expect(show.stdout).toContain("completed (completed)");
    const events = await dossier(["runs", "events", summary.runId, "--json"], env, world.home);
    const parsed = events.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(parsed[0].type).toBe("run-start");
    expect(parsed.at(-1).type).toBe("run-end");
    expect(parsed.map((e: { seq: number }) => e.seq)).toEqual(parsed.map((_: unknown, i: number) => i + 1));
  });

  it("runs the README quick start offline over a docs folder, writing Markdown and HTML", async () => {
    world = await startResearchWorld();
    const docs = join(world.home, "notes");
    mkdirSync(docs);
    writeFileSync(
      join(docs, "resume.md"),
      "# Resume\n\nEvery completed model call is stored in the run's journal under a key.\n\nA resumed run replays the stored answers in order and only calls the model for steps that never completed.\n",
    );
    const run = await dossier(
      ["research", "How does a run resume?", "--docs", docs, "--format", "md,html", "--out", "report"],
      { DOSSIER_HOME: join(world.home, "data") },
      world.home,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("offline");
    const md = readFileSync(join(world.home, "report.md"), "utf8");
    expect(md).toContain("Offline mode");
    expect(md).toMatch(/\[1\]/);
    expect(md).toContain("resume.md#resume");
    expect(readFileSync(join(world.home, "report.html"), "utf8")).toContain('<ol class="references">');
  });

  it("exits with one line saying what to configure when there is no model and no documents", async () => {
    world = await startResearchWorld();
    const run = await dossier(["research", "anything"], { DOSSIER_HOME: world.home }, world.home);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("[MODEL_NOT_CONFIGURED]");
    expect(lines[0]).toContain("DOSSIER_MODEL");
    expect(lines[0]).toContain("--docs");
  });

  it("prints an estimate and runs nothing", async () => {
    world = await startResearchWorld();
    const run = await dossier(
      ["research", "anything", "--estimate", "--max-tool-calls", "10"],
      worldEnv(world),
      world.home,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Estimate for graph");
    expect(run.stdout).toContain("capped by     max tool calls");
    expect(run.stdout).toContain("cost          unknown");
    expect(world.model.requests).toHaveLength(0);
    expect(world.search.requests).toHaveLength(0);
  });

  it("rejects bad flags with one line", async () => {
    world = await startResearchWorld();
    const run = await dossier(
      ["research", "question here", "--max-tokens", "lots"],
      worldEnv(world),
      world.home,
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'dossier: error [INPUT_INVALID]: --max-tokens must be a positive integer, got "lots"',
    );
  });

  it("runs the default graph strategy and its audit trail reads back through runs events", async () => {
    world = await startResearchWorld();
    const env = worldEnv(world);
    const run = await dossier(["research", "How is topic adoption changing?", "--json"], env, world.home);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.trim());
    expect(summary.strategy).toBe("graph");
    const events = await dossier(["runs", "events", summary.runId], env, world.home);
    for (const kind of [
      "task-framed",
      "plan-update",
      "node-assessed",
      "gate-verdict",
      "rubric-update",
      "decision",
    ]) {
      expect(events.stdout).toContain(` ${kind}`);
    }
    expect(events.stdout).toMatch(/plan-update\s+\[planner\] iteration 0: \d+ nodes .* diff: \+T-5,T-6,T-7/);
    expect(events.stdout).toMatch(/decision\s+stop: planner-synthesize/);
  });

  it("runs the README quick start over the project's own docs", async () => {
    world = await startResearchWorld();
    const docs = fileURLToPath(new URL("../../../docs", import.meta.url));
    const run = await dossier(
      [
        "research",
        "How does Dossier keep citations honest?",
        "--docs",
        docs,
        "--format",
        "md,html",
        "--out",
        "report",
      ],
      { DOSSIER_HOME: join(world.home, "data") },
      world.home,
    );
    expect(run.code).toBe(0);
    const md = readFileSync(join(world.home, "report.md"), "utf8");
    expect(md).toContain("Offline mode");
    expect(md).toMatch(/\.md#[a-z0-9-]+`/);
    expect(existsSync(join(world.home, "report.html"))).toBe(true);
  });
});

describe("research --mode", () => {
  it("passes smtl's mode: --mode answer asks for the short answer; without it the strategy's default (the report) stands", () => {
    expect(requestFromFlags("q", { strategy: "smtl", mode: "answer" }, {}).strategyOptions).toEqual({
      mode: "answer",
    });
    expect(requestFromFlags("q", { strategy: "smtl" }, {}).strategyOptions).toBeUndefined();
  });
});

describe("research --verify", () => {
  it("takes off, check, judge or rewrite; anything else is INPUT_INVALID before anything runs", () => {
    expect(requestFromFlags("q", { verify: "rewrite" }, {}).verify).toBe("rewrite");
    expect(requestFromFlags("q", {}, {}).verify).toBeUndefined();
    expect(() => requestFromFlags("q", { verify: "strict" }, {})).toThrow(
      /--verify must be off, check, judge or rewrite/,
    );
  });
});
