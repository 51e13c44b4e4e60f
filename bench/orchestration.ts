/**
 * Orchestration benchmark: each strategy runs in the loopback research world with injected
 * latencies (a model call and a search cost `--latency` ms, a page `--page` ms), and the figures
 * of the run are printed: wall time; the critical-path bound at those NOMINAL latencies over the
 * run's own dependency structure (see critical-path.ts — queue waits, retries and CPU are not in
 * it); their ratio; the chain's depth (calls, and model calls, on it); the total wait for
 * provider slots; retries; model calls; tool calls per agent step; tokens.
 *
 * Run: node bench/orchestration.ts [--latency 200,500] [--page 100] [--subtasks 5] [--runs 3]
 *      [--concurrency N (default: the run's default)] [--strategies minddr,graph,warp,smtl,mams]
 *
 * With `--runs N` each strategy runs N times per latency; the row shown is the run with the
 * median ratio, and the last column gives the lowest and highest ratio of the N runs.
 */

import type { DossierEvent } from "../src/core/events.ts";
import { startResearchWorld } from "../test/research/world.ts";
import { calls, criticalPath } from "./critical-path.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const latencies = (arg("latency") ?? "200,500").split(",").map(Number);
const pageMs = Number(arg("page") ?? 100);
const subtasks = Number(arg("subtasks") ?? 5);
const concurrency = arg("concurrency") ? Number(arg("concurrency")) : undefined;
const strategies = (arg("strategies") ?? "minddr,graph,warp,smtl,mams").split(",");
const runs = Math.max(1, Number(arg("runs") ?? 1));

/** What a seed requires to run in sequence, said next to its figures. */
const SEQUENTIAL_BY_SEED: Record<string, string> = {
  warp: "drafting is sequential by its seed (each section conditioned on the draft so far)",
  smtl: "steps are sequential by its seed (each step reads the last one's observations)",
  mams: "chunks are folded into the state one after another by its seed",
};

interface Row {
  strategy: string;
  latencyMs: number;
  wallMs: number;
  boundMs: number;
  depth: number;
  llmDepth: number;
  queueMs: number;
  retries: number;
  llmCalls: number;
  toolCalls: number;
  agentSteps: number;
  input: number | null;
  output: number | null;
  status: string;
  /** Lowest and highest ratio over the runs (one run: both its own). */
  range: [number, number];
}

function agentSteps(
  strategy: string,
  events: readonly DossierEvent[],
  counts: Record<string, number>,
): number {
  const count = (role: string) => counts[role] ?? 0;
  return (
    count("search-step") +
    count("inner-step") +
    count("warp-search") +
    count("mams-search") +
    (strategy === "minddr" ? subtasks : 0) +
    (strategy === "graph"
      ? events.filter((e) => e.type === "node-start" && e.nodeType === "search").length
      : 0) +
    events.filter((e) => e.type === "step-end").length
  );
}

async function run(strategy: string, latencyMs: number): Promise<Row> {
  const world = await startResearchWorld({
    subtasks,
    latencyMs,
    searchLatencyMs: latencyMs,
    toolLatencyMs: pageMs,
  });
  try {
    const result = await world.research({
      query: "How did battery costs and adoption change?",
      strategy,
      ...(concurrency ? { concurrency } : {}),
    });
    const events = result.events;
    const ts = (type: string) => Date.parse(events.find((e) => e.type === type)!.ts);
    const nominal = { llmMs: latencyMs, searchMs: latencyMs, pageMs };
    const path = criticalPath(events, nominal);
    const all = calls(events, nominal);
    const u = result.record.usage!;
    return {
      strategy,
      latencyMs,
      wallMs: ts("run-end") - ts("run-start"),
      boundMs: path.boundMs,
      depth: path.depth,
      llmDepth: path.llmDepth,
      queueMs: all.reduce((n, c) => n + c.queueMs, 0),
      retries:
        all.reduce((n, c) => n + c.retries, 0) +
        events.filter((e) => e.type === "tool-end" && !e.ok && !e.cached).length,
      llmCalls: u.llmCalls,
      toolCalls: events.filter(
        (e) =>
          e.type === "tool-start" &&
          ["web_search", "crawl_page", "fetch_page", "local_search", "academic_search"].includes(e.tool),
      ).length,
      agentSteps: agentSteps(strategy, events, world.script.counts as Record<string, number>),
      input: u.inputTokens,
      output: u.outputTokens,
      status: result.record.status,
      range: [0, 0],
    };
  } finally {
    await world.close();
  }
}

// Warm-up: the first page extraction and the first model call load modules; not measured.
await run("smtl", 0).catch(() => undefined);

const ratio = (r: Row) => (r.boundMs > 0 ? r.wallMs / r.boundMs : Number.POSITIVE_INFINITY);
const rows: Row[] = [];
for (const latencyMs of latencies)
  for (const s of strategies) {
    try {
      const sample: Row[] = [];
      for (let i = 0; i < runs; i++) sample.push(await run(s, latencyMs));
      sample.sort((a, b) => ratio(a) - ratio(b));
      const median = sample[Math.floor((sample.length - 1) / 2)]!;
      rows.push({ ...median, range: [ratio(sample[0]!), ratio(sample.at(-1)!)] });
    } catch (error) {
      console.log(`${s} @ ${latencyMs} ms: did not run (${error instanceof Error ? error.message : error})`);
    }
  }

console.log(
  `orchestration: model call and search ${latencies.join(" / ")} ms, page ${pageMs} ms, ${subtasks} minddr subtasks, concurrency ${concurrency ?? "default"}, ${runs} run(s) each${runs > 1 ? " (the median-ratio run shown)" : ""}`,
);
const head = [
  "strategy",
  "lat ms",
  "wall ms",
  "bound ms",
  "ratio",
  "depth",
  "llm depth",
  "queue ms",
  "retries",
  "LLM calls",
  "tools/step",
  "input tok",
  "output tok",
  "ratio range",
];
console.log(head.map((h, i) => (i === 0 ? h.padEnd(9) : h.padStart(12))).join(""));
for (const r of rows) {
  const cells = [
    r.strategy.padEnd(9),
    String(r.latencyMs),
    r.wallMs.toFixed(0),
    r.boundMs.toFixed(0),
    r.boundMs > 0 ? (r.wallMs / r.boundMs).toFixed(2) : "n/a",
    String(r.depth),
    String(r.llmDepth),
    r.queueMs.toFixed(0),
    String(r.retries),
    String(r.llmCalls),
    r.agentSteps > 0 ? (r.toolCalls / r.agentSteps).toFixed(2) : "n/a",
    String(r.input ?? "unknown"),
    String(r.output ?? "unknown"),
    `${r.range[0].toFixed(2)}–${r.range[1].toFixed(2)}`,
  ];
  console.log(cells.map((c, i) => (i === 0 ? c : c.padStart(12))).join(""));
}
for (const s of strategies)
  if (SEQUENTIAL_BY_SEED[s] && rows.some((r) => r.strategy === s))
    console.log(`${s}: ${SEQUENTIAL_BY_SEED[s]}; its depth is the seed's, not a queue's`);
const bad = rows.filter((r) => r.status !== "completed");
for (const r of bad) console.log(`${r.strategy} @ ${r.latencyMs} ms ended ${r.status}`);
