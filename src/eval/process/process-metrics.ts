/**
 * Process metrics of a run, computed from its event log alone (seed: MindDR Table 1, plus
 * usage): reflection turns and search-query repetition (thinking efficiency), per-tool usage
 * share and failure rate (tool use), outline title miss rate and hierarchy errors (outline),
 * heading errors, temporal error rate and valid-table rate (report), tokens, cost, wall time and
 * tool calls per step; and where the wall time went on the chain of calls that decided when the
 * run ended (critical-chain.ts). A figure whose inputs the log does not contain is null — never 0.
 */

import { z } from "zod";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { flattenOutline, outlineLeaves, outlineSchema, validateOutline } from "../../core/outline.ts";
import { addKnown } from "../../core/usage.ts";
import { normalizeTitle } from "../checks/headings.ts";
import { type ChainBreakdown, criticalChain } from "./critical-chain.ts";
import { normalizeQuery, queriesOf, toolCallRecords } from "./tool-calls.ts";

/** Usage of one tool. */
export interface ToolUsage {
  tool: string;
  /** Attempts (fallback attempts included), as the gateway counts them. */
  calls: number;
  /** calls / all tool calls. */
  share: number;
  failures: number;
  failureRate: number;
  cached: number;
}

/** The process metrics of one run. */
export interface ProcessMetrics {
  runId: string | null;
  /** Status of the last run-end, or null while the run has not ended. */
  status: string | null;
  stopReason: string | null;
  events: number;
  reasoning: {
    /** Model calls that read tool results new to their scope, plus critic calls. */
    reflectionTurns: number;
    llmCalls: number;
    llmFailures: number;
    /** Rejected (unparsable / invalid) model answers. */
    formatErrors: number;
  };
  search: {
    /** Search queries issued (fallback attempts not counted again). */
    queries: number;
    distinct: number;
    /** (queries − distinct) / queries; null without queries. */
    repetitionRate: number | null;
  };
  tools: {
    calls: number;
    failures: number;
    /** failures / calls; null without calls. */
    failureRate: number | null;
    perTool: ToolUsage[];
    /** Tool requests (fallback attempts excluded). */
    requests: number;
    /** Agent steps that issued tool calls. */
    steps: number;
    /** requests / steps; null without steps. */
    callsPerStep: number | null;
  };
  outline: {
    sections: number | null;
    /** Outline titles missing from the report (headings, else written sections) / titles compared. */
    titleMissRate: number | null;
    missingTitles: string[] | null;
    /** Hierarchy problems of the final outline (ids, depth, child counts, empty titles). */
    hierarchyErrors: number | null;
  };
  report: {
    headingErrors: number | null;
    tables: number | null;
    validTableRate: number | null;
    temporalFlagged: number | null;
    temporalErrorRate: number | null;
    languageShare: number | null;
  };
  usage: {
    inputTokens: number | null;
    outputTokens: number | null;
    totalTokens: number | null;
    costUsd: number | null;
    wallTimeMs: number | null;
  };
  /**
   * The last attempt's wall time on the chain of calls that decided when it ended, cause by cause:
   * calls answering, limiter waits by limiter, retries, gaps behind other calls, gaps with no call
   * in flight by code step. Null while the run has not ended.
   */
  timing: Omit<ChainBreakdown, "links"> | null;
}

function last<T extends DossierEvent["type"]>(
  events: readonly DossierEvent[],
  type: T,
): EventOf<T> | undefined {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.type === type) return events[i] as EventOf<T>;
  return undefined;
}

/** What process metrics need from a report's stored check figures. */
export interface StoredCheckFigures {
  tables: { total: number; valid: number } | null;
  headingErrors: number | null;
  headingTitles: string[] | null;
  temporal: { flagged: number; errorRate: number | null } | null;
  languageShare: number | null;
}

const count = z.number().int().nonnegative();
/**
 * Accepts {@link ReportCheckFigures} (what `runReportChecks` returns) and the report pipeline's
 * `ReportChecks` (`headings.problems` as a count, temporal without a predictive count).
 */
const storedChecksSchema = z.object({
  tables: z.object({ total: count, valid: count }).optional(),
  headings: z
    .object({
      errors: count.optional(),
      problems: z.unknown().optional(),
      titles: z.array(z.string()).optional(),
    })
    .optional(),
  temporal: z
    .object({ flagged: count, predictive: count.optional(), errorRate: z.number().nullable().optional() })
    .optional(),
  language: z.object({ share: z.number().nullable() }).nullable().optional(),
});

function temporalRate(t: { flagged: number; predictive?: number; errorRate?: number | null }): number | null {
  if (t.errorRate !== undefined) return t.errorRate;
  return t.predictive ? t.flagged / t.predictive : null;
}

/** The check figures of a report-ready event's stats (`stats.checks`, or the stats themselves), or null. */
export function checkFiguresOf(stats: unknown): StoredCheckFigures | null {
  for (const candidate of [(stats as { checks?: unknown } | null)?.checks, stats]) {
    const parsed = storedChecksSchema.safeParse(candidate);
    if (!parsed.success) continue;
    const { tables, headings, temporal, language } = parsed.data;
    if (!tables && !headings && !temporal && !language) continue;
    const problems = typeof headings?.problems === "number" ? headings.problems : null;
    return {
      tables: tables ?? null,
      headingErrors: headings?.errors ?? problems,
      headingTitles: headings?.titles ?? null,
      temporal: temporal ? { flagged: temporal.flagged, errorRate: temporalRate(temporal) } : null,
      languageShare: language?.share ?? null,
    };
  }
  return null;
}

/** Sum of closed run-start → run-end segments; null while a segment is open. */
function wallTime(events: readonly DossierEvent[]): number | null {
  let total = 0;
  let open: number | null = null;
  let segments = 0;
  for (const e of events) {
    if (e.type === "run-start") open = Date.parse(e.ts);
    else if (e.type === "run-end" && open !== null) {
      total += Date.parse(e.ts) - open;
      open = null;
      segments++;
    }
  }
  return open !== null || segments === 0 ? null : total;
}

/** Computes the process metrics of a run from its events (in `seq` order). Pure. */
export function computeProcessMetrics(events: readonly DossierEvent[]): ProcessMetrics {
  const llmEnds = events.filter((e): e is EventOf<"llm-end"> => e.type === "llm-end");
  const live = llmEnds.filter((e) => !e.replayed);
  let inputTokens: number | null = 0;
  let outputTokens: number | null = 0;
  let costUsd: number | null = 0;
  for (const e of live) {
    inputTokens = addKnown(inputTokens, e.inputTokens);
    outputTokens = addKnown(outputTokens, e.outputTokens);
    costUsd = addKnown(costUsd, e.costUsd);
  }

  const { calls, steps, reflectionTurns } = toolCallRecords(events);
  const critic = llmEnds.filter((e) => e.role === "critic").length;
  const ended = calls.filter((c) => c.ok !== null);
  const requests = calls.filter((c) => !c.fallback);
  const queries = requests
    .flatMap((c) => queriesOf(c.args))
    .map(normalizeQuery)
    .filter((q) => q !== "");
  const distinct = new Set(queries).size;
  const byTool = new Map<string, ToolUsage>();
  for (const c of ended) {
    const usage = byTool.get(c.tool) ?? {
      tool: c.tool,
      calls: 0,
      share: 0,
      failures: 0,
      failureRate: 0,
      cached: 0,
    };
    usage.calls++;
    if (!c.ok) usage.failures++;
    if (c.cached) usage.cached++;
    byTool.set(c.tool, usage);
  }
  const perTool = [...byTool.values()]
    .map((u) => ({ ...u, share: u.calls / ended.length, failureRate: u.failures / u.calls }))
    .sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  const failures = ended.filter((c) => !c.ok).length;

  const outlineEvent = last(events, "outline-update");
  const outline = outlineEvent ? outlineSchema.safeParse(outlineEvent.outline) : null;
  const report = last(events, "report-ready");
  const figures = report ? checkFiguresOf(report.stats) : null;
  const written = events.filter((e): e is EventOf<"section-written"> => e.type === "section-written");
  let titleMissRate: number | null = null;
  let missingTitles: string[] | null = null;
  if (outline?.success) {
    // Report headings cover every outline section; written sections cover only the leaves.
    const headings = figures?.headingTitles ?? null;
    const compared = headings
      ? flattenOutline(outline.data)
      : written.length
        ? outlineLeaves(outline.data)
        : null;
    const present = new Set((headings ?? written.map((w) => w.title)).map(normalizeTitle));
    if (compared && compared.length > 0) {
      missingTitles = compared.filter((s) => !present.has(normalizeTitle(s.title))).map((s) => s.title);
      titleMissRate = missingTitles.length / compared.length;
    }
  }

  const chain = criticalChain(events);
  const runEnd = last(events, "run-end");
  const lastStart = last(events, "run-start");
  const runEnded = runEnd !== undefined && (lastStart === undefined || runEnd.seq > lastStart.seq);
  return {
    runId: events[0]?.runId ?? null,
    status: runEnded ? runEnd.status : null,
    stopReason: runEnded ? runEnd.stopReason : null,
    events: events.length,
    reasoning: {
      reflectionTurns: reflectionTurns + critic,
      llmCalls: llmEnds.length,
      llmFailures: llmEnds.filter((e) => !e.ok).length,
      formatErrors: events.filter((e) => e.type === "format-error").length,
    },
    search: {
      queries: queries.length,
      distinct,
      repetitionRate: queries.length ? (queries.length - distinct) / queries.length : null,
    },
    tools: {
      calls: ended.length,
      failures,
      failureRate: ended.length ? failures / ended.length : null,
      perTool,
      requests: requests.length,
      steps,
      callsPerStep: steps ? requests.length / steps : null,
    },
    outline: {
      sections: outline?.success ? flattenOutline(outline.data).length : null,
      titleMissRate,
      missingTitles,
      hierarchyErrors: outline?.success ? validateOutline(outline.data).length : null,
    },
    report: {
      headingErrors: figures?.headingErrors ?? null,
      tables: figures?.tables?.total ?? null,
      validTableRate: figures?.tables?.total ? figures.tables.valid / figures.tables.total : null,
      temporalFlagged: figures?.temporal?.flagged ?? null,
      temporalErrorRate: figures?.temporal?.errorRate ?? null,
      languageShare: figures?.languageShare ?? null,
    },
    usage: {
      inputTokens,
      outputTokens,
      totalTokens: addKnown(inputTokens, outputTokens),
      costUsd,
      wallTimeMs: wallTime(events),
    },
    timing: chain ? withoutLinks(chain) : null,
  };
}

function withoutLinks({ links: _links, ...rest }: ChainBreakdown): Omit<ChainBreakdown, "links"> {
  return rest;
}
