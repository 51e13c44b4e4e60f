/**
 * Rollout throughput: group rollouts (`dossier train rollouts`, through the library's
 * `runRollouts`) in a loopback research world where every model call takes `--latency` ms
 * (default 200), a search `--search` ms and a page `--page` ms, at each concurrency of
 * `--concurrency` (default 1,4,8). Each concurrency gets a fresh world and store and runs
 * `--questions` questions × `--group` rollouts; every rollout records its model calls and is
 * written to the folder's runs.jsonl, as in real use. Printed per strategy and concurrency:
 * rollouts, wall time, this process's CPU time (user + system; the world's servers run in it
 * too), rollouts per hour, model calls per rollout and recorded calls.
 *
 * Pages read once are cached in the world's store, so later rollouts of a question read them
 * from the cache (as rollouts of one question do in real use): their reader calls are fewer.
 *
 * Run: node bench/rollouts.ts [--strategies smtl,warp] [--concurrency 1,4,8] [--questions 4]
 *      [--group 4] [--latency 200] [--search 200] [--page 100]
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDossier } from "../src/runtime/dossier.ts";
import { readRolloutRuns } from "../src/train/rollouts/rollout-dir.ts";
import { runRollouts } from "../src/train/rollouts/run-rollouts.ts";
import { startResearchWorld } from "../test/research/world.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const strategies = (arg("strategies") ?? "smtl,warp").split(",");
const concurrencies = (arg("concurrency") ?? "1,4,8").split(",").map(Number);
const questions = Number(arg("questions") ?? 4);
const group = Number(arg("group") ?? 4);
const latencyMs = Number(arg("latency") ?? 200);
const searchMs = Number(arg("search") ?? 200);
const pageMs = Number(arg("page") ?? 100);

const ROWS = Array.from({ length: questions }, (_, i) => ({
  id: `q${i + 1}`,
  prompt: `Which topic saw measured growth of ${11 + i} percent in the 2025 survey?`,
  answer: `Topic ${i + 1}`,
}));

interface Row {
  strategy: string;
  concurrency: number;
  rollouts: number;
  failed: number;
  wallMs: number;
  /** CPU time of this process (user + system) over the rollouts. */
  cpuMs: number;
  modelCalls: number;
  recordedCalls: number;
}

async function measure(strategy: string, concurrency: number): Promise<Row> {
  const world = await startResearchWorld({ latencyMs, searchLatencyMs: searchMs, toolLatencyMs: pageMs });
  const out = mkdtempSync(join(tmpdir(), "dossier-bench-rollouts-"));
  const dossier = createDossier({
    env: {
      DOSSIER_HOME: world.home,
      DOSSIER_MODEL: "openai-compatible:fake-model",
      DOSSIER_BASE_URL: world.model.url,
      DOSSIER_API_KEY: "sk-bench",
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: world.search.baseUrl("searxng"),
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    },
    cwd: world.home,
  });
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await runRollouts({
      rows: ROWS,
      dir: out,
      strategy,
      group,
      concurrency,
      research: { currentDate: "2026-03-01" },
      dossier: { research: (q, o) => dossier.research(q, o), runs: dossier.runs },
    });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const runs = readRolloutRuns(out);
    const modelCalls = Object.values(world.script.counts).reduce((a, b) => a + b, 0);
    return {
      strategy,
      concurrency,
      rollouts: result.progress.done,
      failed: result.progress.failed,
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      modelCalls,
      recordedCalls: runs.reduce((n, r) => n + r.calls.length, 0),
    };
  } finally {
    await dossier.close();
    await world.close();
    rmSync(out, { recursive: true, force: true });
  }
}

// Warm-up: module loading and the first page extraction are not measured.
await measure("smtl", 1).catch(() => undefined);

console.log(
  `rollouts, short loopback world: model call ${latencyMs} ms, search ${searchMs} ms, page ${pageMs} ms; ${questions} questions × group ${group}`,
);
const head = [
  "strategy",
  "concurrency",
  "rollouts",
  "failed",
  "wall s",
  "cpu s",
  "rollouts/h",
  "calls/rollout",
  "recorded",
];
console.log(head.map((h, i) => (i === 0 ? h.padEnd(9) : h.padStart(14))).join(""));
for (const strategy of strategies)
  for (const concurrency of concurrencies) {
    const r = await measure(strategy, concurrency);
    const cells = [
      r.strategy.padEnd(9),
      String(r.concurrency),
      String(r.rollouts),
      String(r.failed),
      (r.wallMs / 1000).toFixed(1),
      (r.cpuMs / 1000).toFixed(1),
      ((r.rollouts / r.wallMs) * 3_600_000).toFixed(0),
      (r.modelCalls / Math.max(1, r.rollouts + r.failed)).toFixed(1),
      String(r.recordedCalls),
    ];
    console.log(cells.map((c, i) => (i === 0 ? c : c.padStart(14))).join(""));
  }
