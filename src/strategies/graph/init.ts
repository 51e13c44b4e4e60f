/**
 * INITPLAN of the graph strategy (Algorithm 1, line 3): after the survey and the fixed outline,
 * the planner drafts the first real DAG from the topic and the outline — INITPLAN(x, O), so it
 * runs alongside INITGUIDANCE (the persistent rubric), which needs it not. Its nodes are
 * renumbered and normalised (known sections only, dependencies on existing or earlier new
 * nodes, depths below every dependency, the report node last); then every level-1 section that
 * no live search node serves gets one deterministic search node. So the research loop always
 * starts with a search node per level-1 section, whatever the planner answers — a planner
 * failure or an empty proposal falls back to the deterministic plan (warning `INITPLAN_FALLBACK`).
 */

import { isDossierError } from "../../core/errors.ts";
import { flattenOutline, type Outline } from "../../core/outline.ts";
import { nextNodeId, type PlanGraph, type PlanNodeProposal, readyFrontier } from "../../core/plan-graph.ts";
import { checkLegality } from "../../core/plan-graph-legality.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { servesSection } from "../../kit/writer-brief.ts";
import { failureOf, fallback } from "./fallbacks.ts";
import { FALLBACK_RUBRIC } from "./framing.ts";
import { repairGraph } from "./plan.ts";
import { type InitialPlan, proposeInitialPlan } from "./planner.ts";
import { persistentRubricText } from "./rubricer.ts";

/** What INITPLAN needs. */
export interface InitPlanInput {
  graph: PlanGraph;
  spec: string;
  outline: Outline;
  language: string;
  maxDepth: number;
}

/**
 * Normalises the planner's new nodes against `graph`: search and llm nodes only, fresh ids,
 * dependencies on existing nodes or earlier kept new nodes only (an id the planner proposed
 * always means its proposal), known section ids only, depth one
 * below the deepest dependency (at least 2, at most `maxDepth - 1`; deeper nodes are dropped).
 */
export function normaliseInitialNodes(
  graph: PlanGraph,
  proposed: readonly PlanNodeProposal[],
  outline: Outline,
  maxDepth: number,
  /** Filled with each kept proposal's id and the id it was given. */
  rename: Map<string, string> = new Map(),
): PlanNodeProposal[] {
  const known = new Set(flattenOutline(outline).map((s) => s.id));
  const depthOf = new Map(graph.nodes.filter((n) => n.status !== "pruned").map((n) => [n.id, n.depth]));
  const reportIds = new Set(graph.nodes.filter((n) => n.type === "report").map((n) => n.id));
  // A dependency on an id the planner proposed means that proposal, even where the id is taken.
  const proposedIds = new Set(proposed.map((p) => p.id));
  const out: PlanNodeProposal[] = [];
  let next = Number(nextNodeId(graph).slice(2));
  for (const p of proposed) {
    if (p.type !== "search" && p.type !== "llm") continue;
    const deps = [
      ...new Set(
        p.deps
          .map((d) => rename.get(d) ?? (!proposedIds.has(d) && depthOf.has(d) && !reportIds.has(d) ? d : ""))
          .filter((d) => d !== "" && depthOf.has(d)),
      ),
    ];
    const depth = Math.max(2, ...deps.map((d) => depthOf.get(d)! + 1));
    if (depth > maxDepth - 1) continue;
    const id = `T-${next++}`;
    rename.set(p.id, id);
    depthOf.set(id, depth);
    const sections = (p.sections ?? []).filter((s) => known.has(s));
    out.push({
      id,
      type: p.type,
      title: p.title.slice(0, 120),
      goal: p.goal,
      deps,
      depth,
      ...(sections.length ? { sections } : {}),
      ...(p.gain !== undefined ? { gain: p.gain } : {}),
    });
  }
  return out;
}

/** Level-1 sections that no live (not pruned, not failed) search node serves. */
export function uncoveredSections(graph: PlanGraph, outline: Outline): Outline["sections"] {
  const searches = graph.nodes.filter(
    (n) => n.type === "search" && n.status !== "pruned" && n.status !== "failed",
  );
  return outline.sections.filter((s) => !searches.some((n) => servesSection(n.sections, s.id)));
}

/** One search node per uncovered level-1 section. */
export function deterministicNodes(graph: PlanGraph, outline: Outline): PlanNodeProposal[] {
  let next = Number(nextNodeId(graph).slice(2));
  return uncoveredSections(graph, outline).map((s) => ({
    id: `T-${next++}`,
    type: "search" as const,
    title: s.title.slice(0, 120),
    goal: `${s.title}: ${s.plan}`.slice(0, 400),
    deps: [],
    depth: 2,
    sections: [s.id],
  }));
}

/** The first plan, the persistent rubric as text, and the first actions (ids of ready nodes). */
export interface FirstPlan {
  graph: PlanGraph;
  persistent: string;
  actions: string[];
}

/**
 * Builds the first plan with the persistent rubric and the first actions. Never throws except
 * on cancellation: a planner failure gives the fixed rubric (warning `RUBRIC_FALLBACK`) and the
 * deterministic plan (warning `INITPLAN_FALLBACK`). The first actions are the planner's choice
 * among the new plan's ready nodes, with every node added for an uncovered section; the whole
 * ready frontier when the planner chose none of the ready nodes.
 */
export async function initialPlan(ctx: RunContext, input: InitPlanInput): Promise<FirstPlan> {
  let proposed: InitialPlan | null = null;
  let failure = "";
  try {
    proposed = await proposeInitialPlan(ctx, {
      spec: input.spec,
      outline: input.outline,
      graph: input.graph,
      language: input.language,
      maxDepth: input.maxDepth,
    });
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    failure = `the planner failed (${isDossierError(error) ? error.code : "error"})`;
    fallback(ctx, "RUBRIC_FALLBACK", {
      message: `persistent rubric failed (${failureOf(error)}); a fixed rubric is used`,
    });
  }
  const before = new Set(input.graph.nodes.map((n) => n.id));
  let graph = input.graph;
  const rename = new Map<string, string>();
  const fromModel = normaliseInitialNodes(
    graph,
    proposed?.nodes ?? [],
    input.outline,
    input.maxDepth,
    rename,
  );
  let chosen: string[] = [];
  if (fromModel.length > 0) {
    const candidate = repairGraph({ nodes: [...graph.nodes, ...fromModel.map(pending)] }, input.maxDepth);
    if (checkLegality(candidate, { maxDepth: input.maxDepth }).length === 0) {
      graph = candidate;
      chosen = (proposed?.actions ?? []).map((id) => rename.get(id) ?? "");
    } else failure = "the planner's first plan could not be made legal";
  } else if (!failure) failure = "the planner proposed no subtasks";
  const filler = deterministicNodes(graph, input.outline);
  if (filler.length > 0) {
    graph = repairGraph({ nodes: [...graph.nodes, ...filler.map(pending)] }, input.maxDepth);
    fallback(ctx, "INITPLAN_FALLBACK", {
      message: `${failure || "the planner left sections uncovered"}; one search node added for section(s) ${filler
        .map((n) => n.sections!.join(","))
        .join(", ")}`,
    });
  }
  const fresh = graph.nodes.filter((n) => !before.has(n.id)).map((n) => n.id);
  ctx.emit({
    type: "decision",
    decision: "continue",
    reason: `initial plan: ${fresh.length} subtask(s)${proposed?.rationale ? ` — ${proposed.rationale}` : ""}`,
  });
  ctx.emit({
    type: "plan-update",
    iteration: 0,
    graph,
    diff: { added: fresh, pruned: [], rewired: [], updated: [], ignored: [] },
  });
  const ready = readyFrontier(graph).filter((n) => n.type === "search" || n.type === "llm");
  const picked = ready.filter((n) => chosen.includes(n.id));
  const added = new Set(filler.map((n) => n.id));
  const actions = picked.length > 0 ? ready.filter((n) => picked.includes(n) || added.has(n.id)) : ready;
  return {
    graph,
    persistent: proposed ? persistentRubricText({ items: proposed.rubric }) : FALLBACK_RUBRIC,
    actions: actions.map((n) => n.id),
  };
}

const pending = (p: PlanNodeProposal) => ({ ...p, status: "pending" as const });
