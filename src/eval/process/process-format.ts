/**
 * The summary table of `dossier eval process`.
 */

import type { ProcessMetrics } from "./process-metrics.ts";
import { count, fmt, formatTable, pct } from "./text-table.ts";

/** Rows of metric, value and what the value counts. */
export function processRows(m: ProcessMetrics): string[][] {
  const rows: string[][] = [
    ["status", m.status ?? "not ended", m.stopReason ?? ""],
    [
      "reflection turns",
      count(m.reasoning.reflectionTurns),
      "model calls reading new tool results + critic calls",
    ],
    [
      "search-query repetition",
      pct(m.search.repetitionRate),
      `${m.search.queries} queries, ${m.search.distinct} distinct`,
    ],
    ["tool calls", count(m.tools.calls), `${m.tools.requests} requests in ${m.tools.steps} steps`],
    ["tool failure rate", pct(m.tools.failureRate), `${m.tools.failures} failed`],
    ...m.tools.perTool.map((t) => [
      `  ${t.tool}`,
      pct(t.share),
      `${t.calls} calls, ${t.failures} failed (${pct(t.failureRate)}), ${t.cached} cached`,
    ]),
    ["tool calls per step", fmt(m.tools.callsPerStep, 2), ""],
    [
      "outline title miss rate",
      pct(m.outline.titleMissRate),
      m.outline.missingTitles?.length ? `missing: ${m.outline.missingTitles.join("; ")}` : "",
    ],
    [
      "outline hierarchy errors",
      count(m.outline.hierarchyErrors),
      m.outline.sections === null ? "no outline" : `${m.outline.sections} sections`,
    ],
    [
      "heading hierarchy errors",
      count(m.report.headingErrors),
      m.report.headingErrors === null ? "no report checks" : "",
    ],
    [
      "temporal error rate",
      pct(m.report.temporalErrorRate),
      m.report.temporalFlagged === null ? "no report checks" : `${m.report.temporalFlagged} flagged`,
    ],
    [
      "valid-table rate",
      pct(m.report.validTableRate),
      m.report.tables === null ? "no report checks" : `${m.report.tables} tables`,
    ],
    ["language share", pct(m.report.languageShare), ""],
    [
      "llm calls",
      count(m.reasoning.llmCalls),
      `${m.reasoning.llmFailures} failed, ${m.reasoning.formatErrors} format errors`,
    ],
    [
      "tokens",
      count(m.usage.totalTokens),
      `${count(m.usage.inputTokens)} in, ${count(m.usage.outputTokens)} out`,
    ],
    ["cost (USD)", fmt(m.usage.costUsd, 4), m.usage.costUsd === null ? "unknown price or usage" : ""],
    ["wall time (s)", fmt(m.usage.wallTimeMs === null ? null : m.usage.wallTimeMs / 1000, 1), ""],
    ...timingRows(m.timing),
  ];
  return rows;
}

const seconds = (ms: number) => fmt(ms / 1000, 2);

/** Where the last attempt's wall time went on its critical chain. */
function timingRows(t: ProcessMetrics["timing"]): string[][] {
  if (!t) return [["critical chain (s)", "—", "the run has not ended"]];
  return [
    ["critical chain (s)", seconds(t.wallMs), `${t.calls} calls on it, ${t.llmCalls} of them model calls`],
    ["  calls answering", seconds(t.serviceMs), ""],
    ...Object.entries(t.waits)
      .sort((a, b) => b[1] - a[1])
      .map(([limiter, ms]) => [`  waiting for ${limiter}`, seconds(ms), "limiter slot"]),
    ["  retries", seconds(t.retryMs), "failed attempts and backoff"],
    ["  held behind other calls", seconds(t.heldMs), "next call issued late while others ran"],
    ["  no call in flight", seconds(t.idleMs), "the engine's own work between calls"],
    ...t.idleSteps.slice(0, 5).map((s) => [`    ${s.step}`, seconds(s.ms), `${s.gaps} gap(s)`]),
  ];
}

/** The summary table. */
export function formatProcessMetrics(m: ProcessMetrics): string {
  return formatTable(["metric", "value", "detail"], processRows(m));
}
