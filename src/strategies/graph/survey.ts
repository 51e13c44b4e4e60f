/**
 * The coarse phase's broad searches (DuMate §2.2.1: a macro-level exploratory retrieval phase
 * whose evidence the Writer builds the fixed outline from). A broad search node's goal is one of
 * the Router's broad queries — already a query, nothing open-ended to plan — so the Execution
 * Module runs it as a direct tool call (one of its four targets, §2.1.1), not through an inner
 * Search agent: the query on every search tool of the run (web and local; paper search when it is
 * the only one), the top {@link SURVEY_LIMITS.resultsPerQuery} results, and the best
 * {@link SURVEY_LIMITS.readsPerQuery} web results no other broad search reads are read with
 * respect to the query. No model call but the page readers; the node's result lists what was
 * found. A failed tool leaves the node with what the others found; a node with no evidence fails
 * (it never fails the run).
 */

import type { PlanNode } from "../../core/plan-graph.ts";
import type { Observation } from "../../kit/observation.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { ActionRunner, type SearchAction } from "../../kit/search-actions.ts";
import { type NodeResult, runNode } from "./execute.ts";

/** Caps of one broad search. */
export const SURVEY_LIMITS = { resultsPerQuery: 3, readsPerQuery: 1 } as const;

/** The search tools a broad query runs on. */
export function surveyTools(tools: ResearchTools): SearchAction["tool"][] {
  const general = tools.available.filter((t) => t === "web_search" || t === "local_search");
  if (general.length > 0) return general;
  return tools.available.includes("academic_search") ? ["academic_search"] : [];
}

/** Web pages among a search's results, best first, that `claimed` does not hold yet; claims them. */
export function claimReads(
  ctx: Pick<RunContext, "evidence">,
  observations: readonly Observation[],
  claimed: Set<string>,
  limit: number,
): string[] {
  const urls: string[] = [];
  for (const o of observations) {
    if (!o.ok || !o.action.startsWith("web_search")) continue;
    for (const e of o.evidence) {
      const url = ctx.evidence.getSource(e.sourceId)?.url;
      if (urls.length >= limit) return urls;
      if (!url || claimed.has(url) || !/^https?:\/\//i.test(url)) continue;
      claimed.add(url);
      urls.push(url);
    }
  }
  return urls;
}

/** What a broad search leaves as its node's result: the query, the sources it found, what was read. */
export function surveySummary(
  query: string,
  found: readonly string[],
  read: readonly string[],
  failures: readonly string[],
): string {
  const parts = [`Broad search "${query}"`];
  if (found.length > 0) parts.push(`found ${found.join("; ")}`);
  if (read.length > 0) parts.push(`read ${read.join("; ")}`);
  if (failures.length > 0) parts.push(`failed ${failures.join("; ")}`);
  return `${parts.join(" — ")}.`;
}

/** Runs one broad search node. Never throws except on cancellation. */
export async function surveyNode(
  ctx: RunContext,
  node: PlanNode,
  tools: ResearchTools,
  claimed: Set<string>,
  shouldStop: () => string | null,
): Promise<{ ok: boolean; result: NodeResult }> {
  const runner = new ActionRunner(ctx, tools, SURVEY_LIMITS.resultsPerQuery);
  const query = node.goal;
  const searches = await runner.execute(surveyTools(tools).map((tool) => ({ tool, query }) as SearchAction));
  // A spent budget stops the reading, not the searches already made.
  const read =
    tools.available.includes("read_page") && !shouldStop()
      ? claimReads(ctx, searches, claimed, SURVEY_LIMITS.readsPerQuery)
      : [];
  const readings = await runner.execute(
    read.map((url) => ({ tool: "read_page" as const, url, goal: query })),
  );
  const titles = (observations: readonly Observation[]) => [
    ...new Set(
      observations
        .flatMap((o) => o.evidence)
        .map((e) => ctx.evidence.getSource(e.sourceId)?.title ?? e.sourceId),
    ),
  ];
  const failures = [...searches, ...readings]
    .filter((o) => !o.ok)
    .map((o) => `${o.action}: ${o.error?.code}`);
  return {
    ok: runner.evidence.length > 0,
    result: {
      summary: surveySummary(query, titles(searches), titles(readings), failures),
      evidenceIds: runner.evidence.map((e) => e.id),
    },
  };
}

/**
 * Runs the broad search nodes concurrently, each in its own scope with node-start / node-end
 * events, and tells `onDone` each result.
 */
export async function runSurvey(
  ctx: RunContext,
  nodes: readonly PlanNode[],
  tools: ResearchTools,
  shouldStop: () => string | null,
  onDone: (node: PlanNode, ok: boolean, result: NodeResult) => void,
): Promise<void> {
  const claimed = new Set<string>();
  await Promise.all(
    nodes.map((node) => runNode(ctx, node, () => surveyNode(ctx, node, tools, claimed, shouldStop), onDone)),
  );
}
