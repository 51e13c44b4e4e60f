/**
 * `dossier eval process` in-process over a run written through the store API.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../../test/cli-io.ts";
import type { EventInput } from "../../../core/events.ts";
import type { ProcessMetrics } from "../../../eval/process/process-metrics.ts";
import { openSqliteStore } from "../../../store/sqlite-store.ts";

const RUN_ID = "20260101-abcdef";

let cwd: string;

beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-process-")));
});

afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

function dossier(args: string[]): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, DOSSIER_HOME: join(cwd, "data") } });
}

/** Writes a small run through the store API. */
function writeRun(): void {
  const store = openSqliteStore({ home: join(cwd, "data") });
  try {
    store.runs.create({
      id: RUN_ID,
      query: "EV market",
      strategy: "minddr",
      options: {},
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    const events: EventInput[] = [
      { type: "run-start", query: "EV market", strategy: "minddr", options: {} },
      {
        type: "tool-start",
        callId: "C1",
        tool: "web_search",
        provider: "tavily",
        args: { query: "EV sales" },
      },
      {
        type: "tool-end",
        callId: "C1",
        tool: "web_search",
        provider: "tavily",
        ok: true,
        cached: false,
        latencyMs: 5,
      },
      {
        type: "tool-start",
        callId: "C2",
        tool: "web_search",
        provider: "tavily",
        args: { query: "ev sales" },
      },
      {
        type: "tool-end",
        callId: "C2",
        tool: "web_search",
        provider: "tavily",
        ok: false,
        cached: false,
        latencyMs: 5,
        error: { code: "TIMEOUT", message: "slow" },
      },
      {
        type: "llm-start",
        callId: "L1",
        role: "searcher",
        model: "m",
        key: "k1",
        attempt: 1,
        estimatedInputTokens: 10,
      },
      {
        type: "llm-end",
        callId: "L1",
        role: "searcher",
        model: "m",
        key: "k1",
        ok: true,
        replayed: false,
        inputTokens: 1000,
        outputTokens: 200,
        costUsd: 0.003,
        latencyMs: 10,
        formatErrors: 0,
        retries: 0,
      },
      {
        type: "tool-start",
        callId: "C3",
        tool: "fetch_page",
        provider: "http",
        args: { url: "https://x.test" },
      },
      {
        type: "tool-end",
        callId: "C3",
        tool: "fetch_page",
        provider: "http",
        ok: true,
        cached: true,
        latencyMs: 1,
      },
      {
        type: "outline-update",
        outline: {
          sections: [
            { id: "1", title: "Sales", plan: "", children: [] },
            { id: "2", title: "Outlook", plan: "", children: [] },
          ],
        },
      },
      { type: "section-written", sectionId: "1", title: "Sales", chars: 500, citations: 3 },
      { type: "run-end", status: "completed", stopReason: "completed" },
    ];
    events.forEach((event, i) => {
      store.events.append(RUN_ID, event, new Date(Date.UTC(2026, 0, 1, 0, 0, i * 10)).toISOString());
    });
  } finally {
    store.close();
  }
}

describe("dossier eval process", () => {
  it("prints the metrics of a stored run found by id prefix", async () => {
    writeRun();
    const result = await dossier(["eval", "process", "20260101-ab"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Process metrics of run ${RUN_ID}`);
    // Queries "EV sales" and "ev sales" normalise to one: 1 repeat of 2 → 50%.
    expect(result.stdout).toMatch(/^search-query repetition\s+50\.0%\s+2 queries, 1 distinct$/m);
    expect(result.stdout).toMatch(/^tool failure rate\s+33\.3%\s+1 failed$/m);
    expect(result.stdout).toMatch(/^ {2}web_search\s+66\.7%\s+2 calls, 1 failed \(50\.0%\), 0 cached$/m);
    expect(result.stdout).toMatch(/^reflection turns\s+1\s/m);
    expect(result.stdout).toMatch(/^outline title miss rate\s+50\.0%\s+missing: Outlook$/m);
    expect(result.stdout).toMatch(/^heading hierarchy errors\s+—\s+no report checks$/m);
    expect(result.stdout).toMatch(/^tokens\s+1200\s+1000 in, 200 out$/m);
    expect(result.stdout).toMatch(/^wall time \(s\)\s+110\.0$/m);
  });

  it("prints one JSON line with --json and writes JSONL with --out", async () => {
    writeRun();
    const result = await dossier(["eval", "process", RUN_ID, "--json", "--out", "m.jsonl"]);
    expect(result.code).toBe(0);
    const metrics = JSON.parse(result.stdout) as ProcessMetrics;
    expect(metrics.runId).toBe(RUN_ID);
    expect(metrics.tools).toMatchObject({ calls: 3, failures: 1, requests: 3, steps: 2, callsPerStep: 1.5 });
    expect(metrics.usage).toEqual({
      inputTokens: 1000,
      outputTokens: 200,
      totalTokens: 1200,
      costUsd: 0.003,
      wallTimeMs: 110_000,
    });
    expect(metrics.report.validTableRate).toBeNull();
    const lines = fs.readFileSync(join(cwd, "m.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(["metrics", "tool", "tool"]);
  });

  it("reports an unknown run as NOT_FOUND", async () => {
    writeRun();
    const result = await dossier(["eval", "process", "nope"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^dossier: error \[NOT_FOUND\]: no run matches "nope"/);
  });
});
