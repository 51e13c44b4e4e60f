/**
 * Orchestration benchmark: each strategy runs in a loopback research world with injected
 * latencies (a model call and a search cost `--latency` ms, a page `--page` ms), and the figures
 * of the run are printed: wall time; the critical-path bound at those NOMINAL latencies over the
 * run's own dependency structure (see critical-path.ts — queue waits, retries and CPU are not in
 * it); their ratio; the chain's depth (calls, and model calls, on it); the total wait for
 * provider slots; retries; model calls; tool calls per agent step; tokens; the share of input
 * tokens a prompt cache could serve (see prompt-figures.ts); and input tokens per role.
 *
 * Worlds (`--world`):
 * - `real` (default): pages are the sections of DeepResearch Bench's English reports, read from
 *   `../shared/benchmarks` at run time, found by a lexical ranking (drb-pages.ts); run `i` asks
 *   the i-th English task's question, so token and depth figures reflect real reading;
 * - `short`: twenty pages of three short sentences and one fixed question;
 * - `fan-out`: the real pages, with a model that answers every request with schema-valid content
 *   of random width instead of the scripted answers — plans, outlines and query lists of random
 *   length, stop flags at random — seeded by the run's number (fan-out-model.ts). Model calls
 *   and searches cost 500 ms unless `--latency` says otherwise; graph and minddr run five times
 *   (seeds 1–5), the other strategies once, unless `--runs` says otherwise.
 *
 * Run: node bench/orchestration.ts [--world real|short|fan-out] [--latency 200,500] [--page 100]
 *      [--subtasks 5] [--runs 3] [--concurrency N (default: the run's default)]
 *      [--strategies minddr,graph,warp,smtl,mams] [--chain]
 *
 * With `--runs N` each strategy runs N times per latency (in the real worlds, over N questions):
 * every figure shown is the median of the N runs, and the last column gives the lowest and
 * highest ratio. `--chain` prints the critical chain of every run step by step: each call's role or
 * tool and scope, its nominal cost, the running total, and what it waited for (critical-path.ts).
 *
 * Besides the table: input tokens per unit of research (per search step and per written section,
 * by role), and the wall time above the bound cause by cause (waste-figures.ts): limiter waits per
 * limiter, retries, calls slower than nominal, gaps held behind other calls, gaps with no call in
 * flight by code step (with this process's CPU time in the gaps), less the parallel slack.
 */

import { availableParallelism, loadavg } from "node:os";
import type { DossierEvent } from "../src/core/events.ts";
import { type TimedCall, timedCalls } from "../src/eval/process/timed-calls.ts";
import { startResearchWorld } from "../test/research/world.ts";
import { criticalPath, explainChain } from "./critical-path.ts";
import { loadRealPages } from "./drb-pages.ts";
import { fanOutAnswers } from "./fan-out-model.ts";
import { sampleLoopBusy } from "./loop-busy.ts";
import { MIN_CACHED_PREFIX, type PromptFigures, promptFigures, recordCalls } from "./prompt-figures.ts";
import {
  formatUnitTokens,
  formatWaste,
  SEARCH_STEP_ROLES,
  type UnitTokens,
  unitTokens,
  type Waste,
  wasteOf,
} from "./waste-figures.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const worldName = arg("world") ?? "real";
if (!["real", "short", "fan-out"].includes(worldName)) throw new Error("--world is real, short or fan-out");
const fanOut = worldName === "fan-out";
const latencies = (arg("latency") ?? (fanOut ? "500" : "200,500")).split(",").map(Number);
const pageMs = Number(arg("page") ?? 100);
const subtasks = Number(arg("subtasks") ?? 5);
const concurrency = arg("concurrency") ? Number(arg("concurrency")) : undefined;
const strategies = (arg("strategies") ?? "minddr,graph,warp,smtl,mams").split(",");
const runsArg = arg("runs");
/** Runs per strategy and latency: `--runs`, else five for graph and minddr in the fan-out world, else one. */
const runsOf = (strategy: string): number =>
  runsArg ? Math.max(1, Number(runsArg)) : fanOut && (strategy === "graph" || strategy === "minddr") ? 5 : 1;
const showChain = process.argv.includes("--chain");
const real = worldName === "short" ? null : loadRealPages();
const SHORT_QUESTION = "How did battery costs and adoption change?";

/** What a seed requires to run in sequence, said next to its figures. */
const SEQUENTIAL_BY_SEED: Record<string, string> = {
  minddr:
    "an agent's steps are sequential (ReAct: each reads the last one's observations; the last step also issues the last reads), the Report agent outlines from every sub-report (MindDR §3.1), and the section writers (the report's frame alongside them) read the outline",
  graph:
    "router → its broad queries as direct tool calls (searched, then the best result of each read) → the outline from their evidence → INITPLAN, writing the persistent rubric, then the first plan and the first actions chosen against it (one call: Algorithm 1 line 3 reads only the topic and the outline) → from the second cycle on, each cycle's planner turn (it reads the persistent rubric, the nodes' summaries and the refreshed gaps: eq. 8, Algorithm 2 line 15) → reflection gate before each action's tools (the action runs once its own verdict clears it, or once its last revision is made; the actions' first model calls alongside it, kept when it lets a node run unrevised) → an inner agent's rounds (each reads the last one's observations) → the gap check (alongside the nodes' summaries; for llm nodes, which retrieve nothing, alongside the gate) → the next turn → the Writer after the stop, writing the sections and the report's frame (title, introduction, conclusion) at once (DuMate Algorithms 1–2: its Writer synthesises from the evidence; no editor pass after it)",
  warp: "drafting (each section conditioned on the draft so far)",
  smtl: "steps (each step reads the last one's observations)",
  mams: "chunks are folded into the state one after another",
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
  prompts: PromptFigures;
  chain: TimedCall[];
  /** The chain step by step (explainChain). */
  chainLines: string[];
  seed: number;
  status: string;
  waste: Waste;
  units: UnitTokens;
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

async function run(strategy: string, latencyMs: number, seed: number, world = worldName): Promise<Row> {
  const recorder = recordCalls();
  const pages = world === "short" ? null : real;
  // The fan-out world's model answers every request; the recorder only records.
  const answer = world === "fan-out" ? fanOutAnswers(seed) : null;
  const started = await startResearchWorld({
    subtasks,
    latencyMs,
    searchLatencyMs: latencyMs,
    toolLatencyMs: pageMs,
    override: (role, body) => {
      recorder.override(role, body);
      return answer?.(body);
    },
    ...(pages ? { pages } : {}),
  });
  const busy = sampleLoopBusy();
  try {
    const query = pages ? pages.questions[(seed - 1) % pages.questions.length]! : SHORT_QUESTION;
    const result = await started.research({
      query,
      strategy,
      // The world's model script recognises smtl's deep-search (short answer) mode only.
      ...(strategy === "smtl" ? { strategyOptions: { mode: "answer" } } : {}),
      ...(concurrency ? { concurrency } : {}),
    });
    const events = result.events;
    const ts = (type: string) => Date.parse(events.find((e) => e.type === type)!.ts);
    const nominal = { llmMs: latencyMs, searchMs: latencyMs, pageMs };
    const path = criticalPath(events, nominal);
    const all = timedCalls(events).flatMap((c) => [c, ...c.nested]);
    const u = result.record.usage!;
    const counts = started.script.counts as Record<string, number>;
    const prompts = promptFigures(recorder.calls);
    return {
      strategy,
      latencyMs,
      wallMs: ts("run-end") - ts("run-start"),
      boundMs: path.boundMs,
      depth: path.depth,
      llmDepth: path.llmDepth,
      queueMs: all.reduce((n, c) => n + c.queueMs, 0),
      retries:
        events.reduce((n, e) => n + (e.type === "llm-end" ? e.retries : 0), 0) +
        events.filter((e) => e.type === "tool-end" && !e.ok && !e.cached).length,
      llmCalls: u.llmCalls,
      toolCalls: events.filter(
        (e) =>
          e.type === "tool-start" &&
          ["web_search", "crawl_page", "fetch_page", "local_search", "academic_search"].includes(e.tool),
      ).length,
      agentSteps: agentSteps(strategy, events, counts),
      input: u.inputTokens,
      output: u.outputTokens,
      prompts,
      chain: path.chain,
      chainLines: showChain ? explainChain(events, path, nominal) : [],
      seed,
      status: result.record.status,
      waste: wasteOf(events, nominal, path.boundMs, busy),
      units: unitTokens(
        prompts,
        SEARCH_STEP_ROLES.reduce((n, role) => n + (counts[role] ?? 0), 0),
        events.filter((e) => e.type === "section-written").length,
      ),
    };
  } finally {
    busy.stop();
    await started.close();
  }
}

// Wall time is the machine's: a loaded machine stretches it (depth, tokens and the bound are not).
const loadAtStart = loadavg()[0]!;
// Warm-up: the first page extraction and the first model call load modules; not measured.
await run("smtl", 0, 1, "short").catch(() => undefined);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ratio = (r: Row) => (r.boundMs > 0 ? r.wallMs / r.boundMs : Number.POSITIVE_INFINITY);
const samples: Row[][] = [];
for (const latencyMs of latencies)
  for (const s of strategies) {
    try {
      const sample: Row[] = [];
      for (let i = 1; i <= runsOf(s); i++) sample.push(await run(s, latencyMs, i));
      samples.push(sample);
    } catch (error) {
      console.log(`${s} @ ${latencyMs} ms: did not run (${error instanceof Error ? error.message : error})`);
    }
  }

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(0)}%` : "n/a");
const fmt = (x: number, digits = 0) => x.toFixed(digits);
const runCounts = [...new Set(strategies.map(runsOf))];
console.log(
  `orchestration, ${worldName} world${real ? ` (${real.pages.length} pages from DeepResearch Bench reports${fanOut ? ", a model of random-width answers" : ""})` : ""}: model call and search ${latencies.join(" / ")} ms, page ${pageMs} ms, ${fanOut ? "" : `${subtasks} minddr subtasks, `}concurrency ${concurrency ?? "default"}, ${strategies.map((s) => `${s} ${runsOf(s)}`).join(", ")} run(s)${runCounts.some((n) => n > 1) ? ` (${real ? `${fanOut ? "seeds and " : ""}questions 1–n; ` : ""}medians shown)` : ""}`,
);
console.log(
  `machine: ${availableParallelism()} cores, load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (wall and ratio stretch under load; depth, tokens and the bound do not)`,
);
const head = [
  "strategy",
  "lat ms",
  "wall ms",
  "bound ms",
  "ratio",
  "depth ×lat",
  "depth",
  "llm depth",
  "queue ms",
  "retries",
  "LLM calls",
  "tools/step",
  "input tok",
  "output tok",
  "prefix",
  "cacheable",
  "ratio range",
];
console.log(head.map((h, i) => (i === 0 ? h.padEnd(9) : h.padStart(12))).join(""));
for (const sample of samples) {
  const m = (f: (r: Row) => number) => median(sample.map(f));
  const r0 = sample[0]!;
  const ratios = sample.map(ratio).sort((a, b) => a - b);
  const input = m((r) => r.prompts.inputTokens);
  const cells = [
    r0.strategy.padEnd(9),
    String(r0.latencyMs),
    fmt(m((r) => r.wallMs)),
    fmt(m((r) => r.boundMs)),
    m(ratio).toFixed(2),
    fmt(
      m((r) => r.boundMs / r.latencyMs),
      1,
    ),
    fmt(
      m((r) => r.depth),
      1,
    ),
    fmt(
      m((r) => r.llmDepth),
      1,
    ),
    fmt(m((r) => r.queueMs)),
    fmt(m((r) => r.retries)),
    fmt(m((r) => r.llmCalls)),
    m((r) => (r.agentSteps > 0 ? r.toolCalls / r.agentSteps : 0)).toFixed(2),
    sample.every((r) => r.input !== null) ? fmt(m((r) => r.input!)) : "unknown",
    sample.every((r) => r.output !== null) ? fmt(m((r) => r.output!)) : "unknown",
    pct(
      m((r) => r.prompts.sharedPrefix),
      input,
    ),
    pct(
      m((r) => r.prompts.cacheable),
      input,
    ),
    `${ratios[0]!.toFixed(2)}–${ratios.at(-1)!.toFixed(2)}`,
  ];
  console.log(cells.map((c, i) => (i === 0 ? c : c.padStart(12))).join(""));
}
console.log(
  `prefix: input tokens in prefixes shared with an earlier call of the same role; cacheable: the same, prefixes of ${MIN_CACHED_PREFIX}+ tokens only`,
);

// Input tokens per role (median over the runs), per strategy.
for (const sample of samples) {
  const r0 = sample[0]!;
  const roles = [...new Set(sample.flatMap((r) => Object.keys(r.prompts.byRole)))];
  const byRole = roles
    .map((role) => {
      const of = (r: Row) => r.prompts.byRole[role] ?? { calls: 0, inputTokens: 0, sharedPrefix: 0 };
      return {
        role,
        calls: median(sample.map((r) => of(r).calls)),
        input: median(sample.map((r) => of(r).inputTokens)),
        shared: median(sample.map((r) => of(r).sharedPrefix)),
      };
    })
    .sort((a, b) => b.input - a.input);
  console.log(
    `${r0.strategy} @ ${r0.latencyMs} ms, input tokens by role: ${byRole
      .map((x) => `${x.role} ${fmt(x.input)} (${fmt(x.calls, 1)} calls, prefix ${pct(x.shared, x.input)})`)
      .join("; ")}`,
  );
  console.log(
    `  input tokens per search step (${fmt(median(sample.map((r) => r.units.searchSteps)))} steps): ${formatUnitTokens(
      sample.map((r) => r.units.perSearchStep),
      median,
    )}; per written section (${fmt(median(sample.map((r) => r.units.sections)))} sections): ${formatUnitTokens(
      sample.map((r) => r.units.perSection),
      median,
    )}`,
  );
  for (const line of formatWaste(`  ${r0.strategy} @ ${r0.latencyMs} ms`, sample)) console.log(line);
  if (showChain)
    for (const r of sample) {
      console.log(
        `  chain of ${r.strategy}, run ${r.seed}: depth ${r.depth} (${r.llmDepth} model calls), bound ${r.boundMs} ms = ${(r.boundMs / r.latencyMs).toFixed(1)} × ${r.latencyMs} ms`,
      );
      for (const line of r.chainLines) console.log(`    ${line}`);
    }
}
for (const s of strategies)
  if (SEQUENTIAL_BY_SEED[s] && samples.some((x) => x[0]!.strategy === s))
    console.log(
      `${s}: sequential by its seed: ${SEQUENTIAL_BY_SEED[s]}; its depth is the seed's, not a queue's`,
    );
for (const r of samples.flat().filter((x) => x.status !== "completed"))
  console.log(`${r.strategy} @ ${r.latencyMs} ms ended ${r.status}`);
