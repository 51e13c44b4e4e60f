/**
 * One cycle's batch of the graph strategy: the frontier actions pass the reflection gate
 * (Algorithm 2) and run concurrently (search nodes via inner Search agents that see both
 * rubrics, llm nodes consolidate) — each as soon as the gate has cleared it, not when the gate
 * has cleared them all — and UPDATEGUIDANCE regenerates the ephemeral rubric from the evidence
 * as soon as the batch's evidence is settled, alongside the nodes' summaries.
 */

import { type PlanNode, setNodeStatus, updateNode } from "../../core/plan-graph.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { reflectionGate } from "./critic.ts";
import { refreshGaps } from "./cycle.ts";
import { executeBatch, type NodeResult } from "./execute.ts";
import { gapsForNode } from "./gaps.ts";
import { describeNode, RESULT_CHARS } from "./planner.ts";
import type { EphemeralRubric } from "./rubricer.ts";
import { type GraphRun, recordNode } from "./run-state.ts";

/** What a batch needs besides the run. */
export interface BatchInput {
  iteration: number;
  /** The ephemeral rubric in force: its gaps go to the nodes whose sections they concern. */
  ephemeral: EphemeralRubric | null;
  planned: PlannedOutline;
  /** The task specification as text, for the ephemeral rubric. */
  specText: string;
  language: string;
  /** Revise rounds of the reflection gate. Default 2. */
  gateRounds?: number;
  /** Rounds of each inner Search agent. */
  innerRounds?: number;
  /** Characters of each section's evidence the gap check reads (gap-evidence.ts). */
  gapChars?: number;
}

/**
 * Gates and runs the actions, and checks the gaps once their evidence is settled; returns the
 * refreshed ephemeral rubric (null when the check failed or never ran).
 */
export async function runGatedBatch(
  ctx: RunContext,
  run: GraphRun,
  actions: PlanNode[],
  input: BatchInput,
): Promise<EphemeralRubric | null> {
  const { iteration } = input;
  ctx.emit({ type: "phase", phase: "gating", detail: `${actions.length} actions` });
  const gated = gateActions(ctx, run, actions, iteration, input.gateRounds ?? 2);
  const gaps = input.ephemeral;
  // UPDATEGUIDANCE reads the evidence, not the nodes' summaries: it starts once every node of
  // the batch has settled its evidence, while their summaries are still being written. An llm
  // node retrieves nothing (its evidence is chosen at once), so a batch of llm nodes has its
  // gaps checked alongside the gate; checked again if the gate's revision chose other evidence.
  let refreshed = null as EphemeralRubric | null;
  await executeBatch(
    ctx,
    actions,
    {
      ...run.base,
      ...(input.innerRounds ? { innerRounds: input.innerRounds } : {}),
      gapsFor: (node) => gapsForNode(gaps, node),
      // A node's own verdict clears it; the whole gate's outcome when it ends first (or fails).
      clearance: (node) =>
        Promise.race([gated.cleared.get(node.id)!, gated.done.then((all) => all.get(node.id)!)]),
    },
    (node, ok, result) => recordNode(run, node, ok, result),
    async (gathered, again) => {
      refreshed = await checkGaps(ctx, run, gathered, again, input);
    },
  );
  ctx.emit({ type: "plan-update", iteration, graph: run.graph });
  return refreshed;
}

/**
 * The reflection gate, asked before any tool runs; the actions' first model calls (an inner
 * agent's first plan, an llm node's note) are made meanwhile, each kept only when the gate lets
 * its node run unrevised (execute.ts). A node is marked running (in its revision, if revised) as
 * soon as the gate clears it, and runs from then on. `cleared` resolves each node as the gate
 * lets it run; `done`, once the gate has ended, to all of them by id.
 */
function gateActions(
  ctx: RunContext,
  run: GraphRun,
  actions: PlanNode[],
  iteration: number,
  maxRounds: number,
): { cleared: Map<string, Promise<PlanNode>>; done: Promise<Map<string, PlanNode>> } {
  const executed = run.graph.nodes
    .filter((n) => n.status === "done" || n.status === "failed")
    .map((n) => describeNode(n, RESULT_CHARS.assessed));
  const clear = new Map<string, (node: PlanNode) => void>();
  const cleared = new Map(
    actions.map((a) => [a.id, new Promise<PlanNode>((resolve) => clear.set(a.id, resolve))] as const),
  );
  const onCleared = (node: PlanNode) => {
    const original = actions.find((a) => a.id === node.id);
    if (original && (original.title !== node.title || original.goal !== node.goal))
      run.graph = updateNode(run.graph, node.id, { title: node.title, goal: node.goal });
    run.graph = setNodeStatus(run.graph, node.id, "running");
    clear.get(node.id)?.(node);
  };
  const done = ctx
    .inScope("gate", () =>
      reflectionGate(ctx, {
        actions,
        context: run.base.context,
        executed: executed.join("\n"),
        maxRounds,
        onCleared,
      }),
    )
    .then((gate) => {
      ctx.emit({ type: "plan-update", iteration, graph: run.graph });
      ctx.emit({
        type: "phase",
        phase: "researching",
        detail: `iteration ${iteration}: ${gate.approved.length} nodes`,
      });
      return new Map(gate.approved.map((a) => [a.id, a]));
    });
  return { cleared, done };
}

/**
 * UPDATEGUIDANCE: the ephemeral rubric regenerated from the evidence settled so far (a node
 * still writing its summary counts with its evidence alone); `again` when a discarded note had
 * chosen the evidence the first check read (warning `DRAFT_DISCARDED`).
 */
async function checkGaps(
  ctx: RunContext,
  run: GraphRun,
  gathered: ReadonlyMap<string, string[]>,
  again: boolean,
  input: BatchInput,
): Promise<EphemeralRubric | null> {
  const { iteration } = input;
  if (again)
    ctx.emit({
      type: "warning",
      code: "DRAFT_DISCARDED",
      message: `iteration ${iteration}: the gap check read evidence a discarded note had chosen; it is discarded and the gaps checked again (the discarded call counts in the budget)`,
    });
  ctx.emit({ type: "phase", phase: "gap-check", detail: `iteration ${iteration}` });
  const settled = new Map<string, NodeResult>(run.results);
  for (const [id, evidenceIds] of gathered)
    if (!settled.has(id)) settled.set(id, { summary: "", evidenceIds });
  const refreshed = await ctx.inScope("rubric", () =>
    refreshGaps(ctx, {
      graph: run.graph,
      planned: input.planned,
      spec: input.specText,
      results: settled,
      language: input.language,
      ...(input.gapChars !== undefined ? { sectionChars: input.gapChars } : {}),
    }),
  );
  if (refreshed) ctx.emit({ type: "rubric-update", kind: "ephemeral", rubric: refreshed });
  return refreshed;
}
