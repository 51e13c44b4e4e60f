/**
 * Executing ready plan nodes of the graph strategy: search nodes go to an inner Search agent,
 * llm nodes consolidate collected evidence without retrieval. Nodes run concurrently; a node
 * that fails is marked failed and never fails the run. A node's evidence is settled before its
 * summary (or consolidation note) is written: once every node of a batch has settled its
 * evidence, what reads only the evidence (the ephemeral rubric) may start alongside the summaries.
 */

import PQueue from "p-queue";
import { isDossierError } from "../../core/errors.ts";
import type { PlanNode } from "../../core/plan-graph.ts";
import type { Evidence } from "../../core/source.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { consolidateEvidence } from "./evidence-consolidator.ts";
import { innerSearch } from "./inner-searcher.ts";

/** What a node leaves behind. */
export interface NodeResult {
  /** The inner agent's summary, or the llm node's consolidation note. */
  summary: string;
  evidenceIds: string[];
}

/** What executing a batch needs. */
export interface ExecuteOptions {
  tools: ResearchTools;
  language: string;
  context: string;
  shouldStop: () => string | null;
  /** Results of executed nodes, for llm nodes' inputs. */
  results: ReadonlyMap<string, NodeResult>;
  innerRounds?: number;
  /** The persistent rubric, for inner Search agents. */
  persistentRubric?: string;
  /** The current ephemeral gaps that concern a node's sections. */
  gapsFor?: (node: PlanNode) => string;
  /**
   * The node as the reflection gate lets it run (its last revision). Given it, a node's first
   * model call (an inner agent's first plan, an llm node's note) is made while the gate decides,
   * and no tool runs before its verdict. An llm node retrieves nothing: the evidence its draft
   * chose is reported at once. What was drafted for a node the gate revised is discarded
   * (warning `DRAFT_DISCARDED`; its call still counts) and made again for the revision, whose
   * evidence replaces the draft's.
   */
  clearance?: (node: PlanNode) => Promise<PlanNode>;
}

/**
 * Runs one node; returns its result and whether it succeeded. Never throws except on
 * cancellation. `onGathered` is told the node's evidence ids as soon as they are settled (again,
 * with `replaces`, when an llm node's revision chose other evidence than its discarded draft).
 */
export async function executeNode(
  ctx: RunContext,
  node: PlanNode,
  options: ExecuteOptions,
  onGathered?: (evidenceIds: string[], replaces?: boolean) => void,
): Promise<{ ok: boolean; result: NodeResult }> {
  const gathered = onGathered ? { onGathered } : {};
  try {
    if (node.type === "search") {
      const r = await innerSearch(ctx, {
        node,
        tools: options.tools,
        context: options.context,
        language: options.language,
        shouldStop: options.shouldStop,
        ...(options.innerRounds ? { maxRounds: options.innerRounds } : {}),
        ...(options.persistentRubric ? { persistentRubric: options.persistentRubric } : {}),
        ...(options.gapsFor ? { gaps: options.gapsFor(node) } : {}),
        ...(options.clearance ? { clearance: options.clearance(node) } : {}),
        ...gathered,
      });
      return {
        ok: r.evidence.length > 0,
        result: { summary: r.summary, evidenceIds: r.evidence.map((e) => e.id) },
      };
    }
    if (node.type === "llm") {
      const preferred = node.deps.flatMap((d) => options.results.get(d)?.evidenceIds ?? []);
      const consolidate = (n: PlanNode, told?: (ids: string[]) => void) =>
        consolidateEvidence(ctx, {
          node: n,
          pool: ctx.evidence.evidence(),
          preferred,
          language: options.language,
          ...(told ? { onGathered: told } : {}),
        });
      let r: Awaited<ReturnType<typeof consolidateEvidence>>;
      if (!options.clearance) r = await consolidate(node, onGathered);
      else {
        const draft = consolidate(node, onGathered);
        const cleared = await options.clearance(node);
        if (cleared.title === node.title && cleared.goal === node.goal) r = await draft;
        else {
          ctx.emit({
            type: "warning",
            code: "DRAFT_DISCARDED",
            message: `${node.id}: its note, written while the critic checked the node, is discarded: the critic revised the node; written again for the revision (the discarded call counts in the budget)`,
          });
          [, r] = await Promise.all([draft, consolidate(cleared, (ids) => onGathered?.(ids, true))]);
        }
      }
      return { ok: r.ok, result: { summary: r.summary, evidenceIds: r.evidence.map((e: Evidence) => e.id) } };
    }
    return { ok: true, result: { summary: `${node.type} node needs no execution here`, evidenceIds: [] } };
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    const code = isDossierError(error) ? error.code : "INTERNAL";
    return { ok: false, result: { summary: `The node failed (${code}).`, evidenceIds: [] } };
  }
}

/** Runs one node in its own scope between its node-start and node-end events, then tells `onDone`. */
export function runNode(
  ctx: RunContext,
  node: PlanNode,
  run: () => Promise<{ ok: boolean; result: NodeResult }>,
  onDone: (node: PlanNode, ok: boolean, result: NodeResult) => void,
): Promise<void> {
  return ctx.inScope(`${node.type}:${node.id}`, async () => {
    ctx.emit({ type: "node-start", nodeId: node.id, nodeType: node.type, title: node.title });
    const { ok, result } = await run();
    ctx.emit({
      type: "node-end",
      nodeId: node.id,
      status: ok ? "done" : "failed",
      summary: `${result.evidenceIds.length} evidence: ${result.summary.slice(0, 200)}`,
    });
    onDone(node, ok, result);
  });
}

/**
 * Runs nodes concurrently, each in its own scope, with node-start / node-end events. With
 * `whenGathered`, that function starts once every node has settled its evidence (it is given
 * the evidence ids by node) and runs alongside the summaries still being written; when a node's
 * evidence was replaced after it started (an llm node's discarded draft), it runs once more,
 * with `again`, after every node is done. The batch ends when all of it is done.
 */
export async function executeBatch(
  ctx: RunContext,
  nodes: readonly PlanNode[],
  options: ExecuteOptions,
  onDone: (node: PlanNode, ok: boolean, result: NodeResult) => void,
  whenGathered?: (gathered: ReadonlyMap<string, string[]>, again: boolean) => Promise<void>,
): Promise<void> {
  const queue = new PQueue({ concurrency: ctx.options.concurrency });
  const gathered = new Map<string, string[]>();
  let allGathered: () => void = () => {};
  const settled = new Promise<void>((resolve) => {
    allGathered = resolve;
  });
  let read = false;
  let stale = false;
  const gather = (node: PlanNode, ids: string[], replaces = false) => {
    if (gathered.has(node.id) && !replaces) return;
    if (read) stale = true;
    gathered.set(node.id, ids);
    if (gathered.size === nodes.length) allGathered();
  };
  if (nodes.length === 0) allGathered();
  const work = Promise.all(
    nodes.map((node) =>
      queue.add(() =>
        runNode(
          ctx,
          node,
          async () => {
            const done = await executeNode(ctx, node, options, (ids, replaces) =>
              gather(node, ids, replaces),
            );
            gather(node, done.result.evidenceIds);
            return done;
          },
          onDone,
        ),
      ),
    ),
  );
  const after = whenGathered
    ? Promise.race([settled, work]).then(async () => {
        read = true;
        await whenGathered(gathered, false);
        await work;
        if (stale) await whenGathered(gathered, true);
      })
    : null;
  await Promise.all([work, after]);
}
