/**
 * The dry estimate of a refresh (`dossier refresh --estimate`): the refresh strategy's expected
 * calls for the run's report (no writer call when nothing changed, one per section at most),
 * set beside what the first version actually cost, as a share of its model calls and tokens.
 * Nothing is called; a run a refresh would refuse is refused alike: unknown, unfinished, not the
 * report's latest completed version, or with a refresh of its report under way.
 */

import type { BudgetLimits } from "../core/budget.ts";
import type { RunRecord } from "../core/run.ts";
import type { Dossier } from "./dossier.ts";
import { estimateResearch, formatEstimate, type Range, type ResearchEstimate } from "./estimate.ts";
import { refreshStrategy } from "./refresh-definition.ts";
import { loadRefreshParent, refreshOf } from "./refresh-parent.ts";
import { nextVersion } from "./refresh-versions.ts";

/** The estimate of a refresh. */
export interface RefreshEstimate extends ResearchEstimate {
  refreshOf: string;
  version: number;
  sections: number;
  pages: number;
  /** What version 1 (the research run) cost. */
  firstRun: { runId: string; llmCalls: number; tokens: number | null };
  /** The estimate as a share (0–1) of the first run's model calls and tokens. */
  share: { llmCalls: Range | null; tokens: Range | null };
}

/** Estimates a refresh of `runId`. */
export async function estimateRefresh(
  dossier: Pick<Dossier, "runs" | "models">,
  runId: string,
  options: { budget?: BudgetLimits; maxSearches?: number } = {},
): Promise<RefreshEstimate> {
  const parent = await loadRefreshParent(dossier.runs, runId);
  const { version } = await nextVersion(dossier.runs, parent.record);
  let first: RunRecord = parent.record;
  for (let of = refreshOf(first); of; of = refreshOf(first)) first = await dossier.runs.get(of);
  const pages = new Set(parent.sections.flatMap((s) => s.numbers)).size;
  const estimate = estimateResearch({
    strategy: refreshStrategy(async () => parent) as never,
    strategyOptions: {
      refreshOf: parent.record.id,
      version,
      sections: parent.sections.length,
      pages,
      ...(options.maxSearches === undefined ? {} : { maxSearches: options.maxSearches }),
    },
    registry: dossier.models,
    budget: options.budget ?? {},
    webReading: true,
  });
  const usage = first.usage;
  const tokens =
    usage && usage.inputTokens !== null && usage.outputTokens !== null
      ? usage.inputTokens + usage.outputTokens
      : null;
  const ratio = (r: Range, of: number | null): Range | null => (of ? [r[0] / of, r[1] / of] : null);
  return {
    ...estimate,
    refreshOf: parent.record.id,
    version,
    sections: parent.sections.length,
    pages,
    firstRun: { runId: first.id, llmCalls: usage?.llmCalls ?? 0, tokens },
    share: {
      llmCalls: ratio(estimate.llmCalls, usage?.llmCalls ?? 0),
      tokens: ratio(estimate.tokens, tokens),
    },
  };
}

/** The estimate as text. */
export function formatRefreshEstimate(e: RefreshEstimate): string {
  const pct = (r: Range | null) =>
    r ? `${Math.round(r[0] * 100)}% – ${Math.round(r[1] * 100)}%` : "unknown";
  return [
    formatEstimate(e).trimEnd(),
    `  refresh of    ${e.refreshOf} → version ${e.version} (${e.sections} sections, ${e.pages} cited pages; no model call when nothing changed)`,
    `  first run     ${e.firstRun.runId}: ${e.firstRun.llmCalls} model calls, ${e.firstRun.tokens ?? "unknown"} tokens`,
    `  share         ${pct(e.share.llmCalls)} of its model calls, ${pct(e.share.tokens)} of its tokens`,
    "",
  ].join("\n");
}
