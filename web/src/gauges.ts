/**
 * Budget gauges: what a run has used of each limit (time, tokens, cost, tool calls), as the
 * live view draws them.
 */

import type { Limits, RunState } from "./run-state.ts";

/** One gauge. */
export interface Gauge {
  key: "time" | "tokens" | "cost" | "toolCalls";
  label: string;
  used: number;
  /** Null when the run has no such limit. */
  limit: number | null;
  /** used / limit, clamped to 0–1 (0 without a limit). */
  ratio: number;
  /** `over` at or past the limit, `warn` from 80 %. */
  level: "ok" | "warn" | "over";
  /** The figure as text, e.g. "1.2k of 10k". */
  text: string;
}

const compact = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n));
const money = (n: number) => `$${n < 1 ? n.toFixed(3) : n.toFixed(2)}`;
const duration = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
};

function gauge(
  key: Gauge["key"],
  label: string,
  used: number | null,
  limit: number | undefined,
  fmt: (n: number) => string,
): Gauge {
  if (used === null) {
    // An unknown figure (a model without a price) is said to be unknown, never shown as 0.
    const of = typeof limit === "number" && limit > 0 ? ` of ${fmt(limit)}` : "";
    return { key, label, used: 0, limit: of ? limit! : null, ratio: 0, level: "ok", text: `unknown${of}` };
  }
  const has = typeof limit === "number" && limit > 0;
  const ratio = has ? Math.min(1, Math.max(0, used / limit)) : 0;
  const level = has && used >= limit ? "over" : has && ratio >= 0.8 ? "warn" : "ok";
  return {
    key,
    label,
    used,
    limit: has ? limit : null,
    ratio,
    level,
    text: has ? `${fmt(used)} of ${fmt(limit)}` : fmt(used),
  };
}

/** The four gauges of a run at `nowMs` (wall time runs until the run ends). */
export function budgetGauges(
  state: Pick<RunState, "usage" | "startedAt" | "endedAt"> & { limits: Limits },
  nowMs: number,
): Gauge[] {
  const start = state.startedAt ? Date.parse(state.startedAt) : Number.NaN;
  const end = state.endedAt ? Date.parse(state.endedAt) : nowMs;
  const elapsed = Number.isFinite(start) ? Math.max(0, end - start) : 0;
  return [
    gauge("time", "Time", elapsed, state.limits.maxWallMs, duration),
    gauge("tokens", "Tokens", state.usage.tokens, state.limits.maxTokens, compact),
    gauge("cost", "Cost", state.usage.costUsd, state.limits.maxCostUsd, money),
    gauge("toolCalls", "Tool calls", state.usage.toolCalls, state.limits.maxToolCalls, compact),
  ];
}
