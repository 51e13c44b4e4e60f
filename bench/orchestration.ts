/**
 * Orchestration benchmark: each strategy runs against scripted latencies on loopback (model
 * 200 ms per call, pages 50 ms), and the figures of the run are printed: wall time, the
 * critical-path lower bound of the same run (see critical-path.ts), their ratio, model calls,
 * tool calls per agent step, and tokens.
 *
 * Run: node bench/orchestration.ts [--latency 200] [--subtasks 5]
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DossierEvent } from "../src/core/events.ts";
import { startResearchWorld } from "../test/research/world.ts";
import { callSpans, criticalPathMs } from "./critical-path.ts";

/** Busy time of the busiest search agent (sum of its outermost call spans). */
function agentBusy(events: readonly DossierEvent[]): number {
  const byScope = new Map<string, number>();
  for (const s of callSpans(events)) {
    if (!s.scope.startsWith("search:")) continue;
    byScope.set(s.scope, (byScope.get(s.scope) ?? 0) + (s.end - s.start));
  }
  return Math.max(...byScope.values());
}

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const latencyMs = arg("latency", 200);
const subtasks = arg("subtasks", 5);

interface Row {
  strategy: string;
  wallMs: number;
  criticalMs: number;
  llmCalls: number;
  toolCalls: number;
  agentSteps: number;
  input: number | null;
  output: number | null;
}

async function run(strategy: "minddr" | "graph" | "warp" | "offline" | "smtl"): Promise<Row> {
  const world = await startResearchWorld({
    subtasks,
    latencyMs,
    toolLatencyMs: 50,
    ...(strategy === "offline" ? { config: { model: undefined } } : {}),
  });
  try {
    let docs: string | undefined;
    if (strategy === "offline") {
      docs = join(world.home, "docs");
      mkdirSync(docs);
      for (let i = 1; i <= 40; i++) {
        writeFileSync(
          join(docs, `note-${i}.md`),
          `# Note ${i}\n\n## Costs\n\nBattery costs in region ${i} fell by ${i} percent last year according to the survey.\n\n## Adoption\n\nAdoption of storage in region ${i} grew as prices fell and grid operators paid for flexibility.\n`,
        );
      }
    }
    const result = await world.research({
      query: "How did battery costs and adoption change?",
      ...(strategy === "offline" ? { docs } : { strategy }),
      concurrency: 8,
    });
    const ts = (type: string) => Date.parse(result.events.find((e) => e.type === type)!.ts);
    const wallMs = ts("run-end") - ts("run-start");
    if (strategy === "minddr") {
      const searching = result.events.filter((e) => e.type === "phase");
      const start = searching.find((e) => e.type === "phase" && e.phase === "searching");
      const next = searching[searching.indexOf(start!) + 1];
      const phaseMs = Date.parse(next!.ts) - Date.parse(start!.ts);
      const perAgent = agentBusy(result.events);
      console.log(
        `minddr search phase: ${subtasks} agents took ${phaseMs} ms; the longest single agent was busy ${perAgent} ms (ratio ${(phaseMs / perAgent).toFixed(2)})`,
      );
    }
    const u = result.record.usage!;
    const c = world.script.counts;
    const seedSteps = strategy === "minddr" ? subtasks : 0;
    const agentSteps =
      c["search-step"] +
      c["inner-step"] +
      c["warp-search"] +
      seedSteps +
      (strategy === "graph"
        ? result.events.filter((e) => e.type === "node-start" && e.nodeType === "search").length
        : 0) +
      result.events.filter((e) => e.type === "step-end").length;
    const agentTools = result.events.filter(
      (e) =>
        e.type === "tool-start" &&
        (e.tool === "web_search" || e.tool === "crawl_page" || e.tool === "local_search"),
    ).length;
    return {
      strategy,
      wallMs,
      criticalMs: criticalPathMs(result.events),
      llmCalls: u.llmCalls,
      toolCalls: agentTools,
      agentSteps,
      input: u.inputTokens,
      output: u.outputTokens,
    };
  } finally {
    await world.close();
  }
}

const rows: Row[] = [];
for (const s of ["minddr", "graph", "warp", "offline", "smtl"] as const) rows.push(await run(s));

console.log(
  `orchestration: scripted model latency ${latencyMs} ms/call, page latency 50 ms, ${subtasks} minddr subtasks, concurrency 8`,
);
const head = [
  "strategy",
  "wall ms",
  "critical ms",
  "ratio",
  "LLM calls",
  "tools/step",
  "input tok",
  "output tok",
];
console.log(head.map((h, i) => (i === 0 ? h.padEnd(10) : h.padStart(12))).join(""));
for (const r of rows) {
  const cells = [
    r.strategy.padEnd(10),
    r.wallMs.toFixed(0),
    r.criticalMs.toFixed(0),
    r.criticalMs > 0 ? (r.wallMs / r.criticalMs).toFixed(2) : "n/a",
    String(r.llmCalls),
    r.agentSteps > 0 ? (r.toolCalls / r.agentSteps).toFixed(2) : "n/a",
    String(r.input ?? "unknown"),
    String(r.output ?? "unknown"),
  ];
  console.log(cells.map((c, i) => (i === 0 ? c : c.padStart(12))).join(""));
}

const smtl = rows.find((r) => r.strategy === "smtl");
if (smtl && smtl.agentSteps > 0) {
  console.log(
    `smtl: ${smtl.agentSteps} steps for the question, ${(smtl.toolCalls / smtl.agentSteps).toFixed(2)} tool calls per step (the seed reports 3.5 per step for SMTL-100 on BrowseComp, 60.4 steps per question)`,
  );
}
