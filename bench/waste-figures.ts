/**
 * The orchestration benchmark's waste breakdown: a run's wall time above its critical-path bound,
 * cause by cause, from the chain of calls that decided when the run ended (the process metric
 * `criticalChain`, src/eval/process/critical-chain.ts) and the world's nominal latencies:
 *
 *   wall − bound = limiter waits + retries + calls slower than nominal + gaps held behind other
 *                  calls + gaps with no call in flight − parallel slack
 *
 * where "slower than nominal" is the chain's service time beyond what the world charges (HTTP,
 * parsing, page extraction inside a crawl), and the parallel slack is how much the chain's own
 * nominal time falls short of the bound (time the chain's waste hid behind a longer parallel
 * branch). The CPU figures are this process's CPU time (loop-busy.ts) over the run and within
 * the chain's gaps: on a loaded machine a gap lasts longer than the CPU work done in it.
 * Input tokens per unit of research: per search step (the model steps of searching agents) and
 * per written section, by role.
 */

import type { DossierEvent } from "../src/core/events.ts";
import { criticalChain, type IdleStep } from "../src/eval/process/critical-chain.ts";
import { type Nominal, nominalOf } from "./critical-path.ts";
import type { LoopBusy } from "./loop-busy.ts";
import type { PromptFigures } from "./prompt-figures.ts";

/** One run's wall time above the bound, by cause (ms). */
export interface Waste {
  waits: Record<string, number>;
  retryMs: number;
  /** Service time of the chain's calls beyond their nominal latency. */
  slowerMs: number;
  heldMs: number;
  idleMs: number;
  idleSteps: IdleStep[];
  /** This process's CPU time in the gaps before each step's calls, by step (null without a sampler). */
  stepCpuMs: Record<string, number> | null;
  /** CPU time of this process within the chain's gaps (null without a sampler). */
  gapCpuMs: number | null;
  /** CPU time of this process over the run (null without a sampler). */
  runCpuMs: number | null;
  slackMs: number;
  /** Calls and model calls on the chain. */
  chainCalls: number;
}

/** The waste of one run whose bound is `boundMs`. */
export function wasteOf(
  events: readonly DossierEvent[],
  nominal: Nominal,
  boundMs: number,
  busy?: LoopBusy,
): Waste {
  const chain = criticalChain(events);
  if (!chain) throw new Error("the run did not end");
  let nominalMs = 0;
  let serviceMs = 0;
  let gapCpuMs = busy ? 0 : null;
  const stepCpuMs: Record<string, number> | null = busy ? {} : null;
  const gapCpu = (from: number, to: number, step: string) => {
    if (!busy || gapCpuMs === null || !stepCpuMs) return;
    const cpu = busy.busyBetween(from, Math.max(from, to));
    gapCpuMs += cpu;
    stepCpuMs[step] = (stepCpuMs[step] ?? 0) + cpu;
  };
  let previousEnd = Date.parse(events.find((e) => e.type === "run-start")!.ts);
  for (const l of chain.links) {
    nominalMs += nominalOf(l.call, nominal);
    serviceMs += l.serviceMs;
    gapCpu(previousEnd, l.call.start, l.step);
    previousEnd = Math.max(previousEnd, l.call.end);
  }
  const runEnd = Date.parse(events.findLast((e) => e.type === "run-end")!.ts);
  const tail = chain.idleSteps.find((s) => s.step.endsWith("→ end"))?.step ?? "end";
  gapCpu(previousEnd, runEnd, tail);
  return {
    waits: chain.waits,
    retryMs: chain.retryMs,
    slowerMs: serviceMs - nominalMs,
    heldMs: chain.heldMs,
    idleMs: chain.idleMs,
    idleSteps: chain.idleSteps,
    stepCpuMs,
    gapCpuMs,
    runCpuMs: busy
      ? busy.busyBetween(Date.parse(events.find((e) => e.type === "run-start")!.ts), runEnd)
      : null,
    slackMs: boundMs - nominalMs,
    chainCalls: chain.calls,
  };
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const ms = (x: number) => `${Math.round(x)}`;

/** The mean waste of a strategy's runs, as lines (the parts add up to mean wall − mean bound). */
export function formatWaste(
  label: string,
  runs: readonly { wallMs: number; boundMs: number; waste: Waste }[],
): string[] {
  const w = runs.map((r) => r.waste);
  const waits = new Map<string, number>();
  for (const x of w)
    for (const [k, v] of Object.entries(x.waits)) waits.set(k, (waits.get(k) ?? 0) + v / w.length);
  const waitTotal = [...waits.values()].reduce((a, b) => a + b, 0);
  const steps = new Map<string, number>();
  for (const x of w)
    for (const s of x.idleSteps) steps.set(s.step, (steps.get(s.step) ?? 0) + s.ms / w.length);
  const topSteps = [...steps.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4);
  const stepCpu = (step: string) =>
    w.every((x) => x.stepCpuMs) ? ` (CPU ${ms(mean(w.map((x) => x.stepCpuMs![step] ?? 0)))})` : "";
  const cpu = w.every((x) => x.gapCpuMs !== null) ? mean(w.map((x) => x.gapCpuMs!)) : null;
  const runCpu = w.every((x) => x.runCpuMs !== null) ? mean(w.map((x) => x.runCpuMs!)) : null;
  const above = mean(runs.map((r) => r.wallMs - r.boundMs));
  return [
    `${label}: wall above the bound ${ms(above)} ms (mean of ${runs.length} run(s)) = limiter waits ${ms(waitTotal)}${
      waits.size
        ? ` (${[...waits.entries()]
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${ms(v)}`)
            .join(", ")})`
        : ""
    } + retries ${ms(mean(w.map((x) => x.retryMs)))} + calls slower than nominal ${ms(mean(w.map((x) => x.slowerMs)))} + held behind other calls ${ms(mean(w.map((x) => x.heldMs)))} + no call in flight ${ms(mean(w.map((x) => x.idleMs)))} − parallel slack ${ms(mean(w.map((x) => x.slackMs)))}`,
    `  this process's CPU ${runCpu === null || cpu === null ? "not sampled" : `${ms(runCpu)} ms over the run, ${ms(cpu)} ms in the chain's gaps`}; no call in flight, by step: ${
      topSteps.length ? topSteps.map(([s, v]) => `${s} ${ms(v)}${stepCpu(s)}`).join("; ") : "none"
    }`,
  ];
}

/** Roles that write the report (their tokens are per written section); the rest research. */
const WRITING_ROLES = new Set([
  "outline",
  "section",
  "coherence",
  "warp-init",
  "warp-write",
  "mams-report",
  "smtl-final",
]);
/** Roles whose calls are search steps: the model steps of searching agents. */
export const SEARCH_STEP_ROLES = ["search-step", "inner-step", "smtl-step", "warp-search", "mams-search"];

/** Input tokens per search step and per written section, by role (null: no such unit in the run). */
export interface UnitTokens {
  searchSteps: number;
  sections: number;
  perSearchStep: Record<string, number> | null;
  perSection: Record<string, number> | null;
}

/** The input tokens of a run per unit of research. */
export function unitTokens(prompts: PromptFigures, searchSteps: number, sections: number): UnitTokens {
  const per = (writing: boolean, units: number) => {
    if (units === 0) return null;
    const out: Record<string, number> = {};
    for (const [role, r] of Object.entries(prompts.byRole))
      if (WRITING_ROLES.has(role) === writing) out[role] = r.inputTokens / units;
    return out;
  };
  return { searchSteps, sections, perSearchStep: per(false, searchSteps), perSection: per(true, sections) };
}

/** Median per role over runs, as `total (role a, role b…)`. */
export function formatUnitTokens(
  figures: readonly (Record<string, number> | null)[],
  median: (xs: number[]) => number,
): string {
  const known = figures.filter((f): f is Record<string, number> => f !== null);
  if (known.length === 0) return "n/a";
  const roles = [...new Set(known.flatMap((f) => Object.keys(f)))];
  const byRole = roles
    .map((role) => [role, median(known.map((f) => f[role] ?? 0))] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = median(known.map((f) => Object.values(f).reduce((a, b) => a + b, 0)));
  return `${Math.round(total)} (${byRole.map(([r, v]) => `${r} ${Math.round(v)}`).join(", ")})`;
}
