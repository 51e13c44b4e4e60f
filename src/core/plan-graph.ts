/**
 * The research plan: a DAG of subtasks (`T-<n>`) that a planner proposes and re-proposes. This module
 * holds the types, the zod schemas, the ready frontier and the pure re-plan operations. Re-plan
 * operations never change a node whose status is done, failed or running; they throw PLAN_ILLEGAL when
 * asked to. Legality (acyclic, deps exist, depth rules, the single report node) lives in
 * `plan-graph-legality.ts`.
 */

import { z } from "zod";
import { DossierError } from "./errors.ts";
import { idNumber } from "./ids.ts";

/** Kinds of plan node. */
export const PLAN_NODE_TYPES = ["search", "llm", "outline", "report"] as const;
/** Statuses of a plan node. */
export const PLAN_NODE_STATUSES = ["pending", "running", "done", "failed", "pruned"] as const;

/** The kind of a plan node. */
export type PlanNodeType = (typeof PLAN_NODE_TYPES)[number];
/** The status of a plan node. */
export type PlanNodeStatus = (typeof PLAN_NODE_STATUSES)[number];

/** One subtask of the plan. */
export interface PlanNode {
  /** `"T-<n>"`, n a positive integer. */
  id: string;
  /** What kind of work the node does. */
  type: PlanNodeType;
  /** A short label. */
  title: string;
  /** What the node must find out or produce. */
  goal: string;
  /** Ids of the nodes this one needs; each must have a strictly smaller depth. */
  deps: string[];
  /** Layer of the DAG, ≥ 1. */
  depth: number;
  /** Where the node is in its life cycle. */
  status: PlanNodeStatus;
  /** Outline section ids this node serves. */
  sections?: string[];
  /** Expected information gain in [0, 1]; missing counts as 0 when ordering the frontier. */
  gain?: number;
  /** What the node produced, once done or failed. */
  result?: unknown;
}

/** A plan: its nodes in creation order. */
export interface PlanGraph {
  /** Nodes in creation order. */
  nodes: PlanNode[];
}

/** A node as a planner proposes it (no status, no result). */
export type PlanNodeProposal = Omit<PlanNode, "status" | "result">;

/** The fields of a pending node that {@link updateNode} may change. */
export type PlanNodePatch = Partial<Pick<PlanNode, "title" | "goal" | "sections" | "gain">>;

/** What {@link applyProposedPlan} changed, by node id. */
export interface PlanDiff {
  /** Ids new in this proposal. */
  added: string[];
  /** Pending nodes absent from the proposal, now pruned. */
  pruned: string[];
  /** Pending nodes whose deps changed. */
  rewired: string[];
  /** Pending nodes whose type, title, goal, depth, sections or gain changed. */
  updated: string[];
  /** Done, failed, running or pruned nodes the proposal tried to change; kept as they were. */
  ignored: string[];
}

/** The pattern of a plan node id. */
export const PLAN_NODE_ID_PATTERN = /^T-[1-9]\d*$/;

/** A plan node as a planner model proposes it. Depth limits and dep rules are checked by legality. */
export const planNodeProposalSchema = z.object({
  id: z.string().describe('"T-<n>": an existing node keeps its id, a new node takes a new number'),
  type: z.enum(PLAN_NODE_TYPES).describe("search retrieves evidence; llm reasons over it, no retrieval"),
  title: z.string().describe("a short label"),
  goal: z.string().describe("what the subtask must find out or produce, specific enough to act on"),
  deps: z.array(z.string()).describe("ids of the nodes it needs"),
  depth: z.number().int().describe("DAG layer from 1, deeper than every dependency"),
  sections: z.array(z.string()).optional().describe('outline section ids it serves, e.g. ["1.2"]'),
  gain: z.number().min(0).max(1).optional().describe("expected information gain"),
});

/** A stored plan node. */
export const planNodeSchema = planNodeProposalSchema.extend({
  status: z.enum(PLAN_NODE_STATUSES),
  result: z.unknown().optional(),
});

/** A stored plan graph. */
export const planGraphSchema = z.object({ nodes: z.array(planNodeSchema) });

function illegal(message: string, details: Record<string, unknown> = {}): DossierError {
  return new DossierError("PLAN_ILLEGAL", message, { details });
}

/** A node built from a proposal, without undefined optional keys. */
function fromProposal(proposal: PlanNodeProposal, status: PlanNodeStatus): PlanNode {
  return {
    id: proposal.id,
    type: proposal.type,
    title: proposal.title,
    goal: proposal.goal,
    deps: [...proposal.deps],
    depth: proposal.depth,
    status,
    ...(proposal.sections === undefined ? {} : { sections: [...proposal.sections] }),
    ...(proposal.gain === undefined ? {} : { gain: proposal.gain }),
  };
}

function requireNode(graph: PlanGraph, id: string): PlanNode {
  const node = graph.nodes.find((candidate) => candidate.id === id);
  if (node === undefined) throw illegal(`No plan node with id ${id}`, { id });
  return node;
}

function requirePending(graph: PlanGraph, id: string, action: string): PlanNode {
  const node = requireNode(graph, id);
  if (node.status !== "pending") {
    throw illegal(`Cannot ${action} node ${id}: it is ${node.status}, only pending nodes change`, {
      id,
      status: node.status,
    });
  }
  return node;
}

function replaceNode(graph: PlanGraph, id: string, update: (node: PlanNode) => PlanNode): PlanGraph {
  return { ...graph, nodes: graph.nodes.map((node) => (node.id === id ? update(node) : node)) };
}

/**
 * Pending nodes whose dependencies are all settled, in execution order: smallest depth first, then
 * highest `gain` (missing = 0), then creation order. A dependency is settled when it is done **or
 * failed**: a failed dependency does not block its dependents, so the report node can still be written
 * from whatever evidence exists. A missing or pruned dependency never settles.
 */
export function readyFrontier(graph: PlanGraph): PlanNode[] {
  const status = new Map(graph.nodes.map((node) => [node.id, node.status] as const));
  const settled = (id: string): boolean => status.get(id) === "done" || status.get(id) === "failed";
  return graph.nodes
    .map((node, index) => ({ node, index }))
    .filter(({ node }) => node.status === "pending" && node.deps.every(settled))
    .sort(
      (a, b) => a.node.depth - b.node.depth || (b.node.gain ?? 0) - (a.node.gain ?? 0) || a.index - b.index,
    )
    .map(({ node }) => node);
}

/** Adds new pending nodes. Throws PLAN_ILLEGAL when an id already exists or repeats in `proposals`. */
export function addNodes(graph: PlanGraph, proposals: readonly PlanNodeProposal[]): PlanGraph {
  const ids = new Set(graph.nodes.map((node) => node.id));
  for (const proposal of proposals) {
    if (ids.has(proposal.id)) throw illegal(`Node ${proposal.id} already exists`, { id: proposal.id });
    ids.add(proposal.id);
  }
  return { ...graph, nodes: [...graph.nodes, ...proposals.map((p) => fromProposal(p, "pending"))] };
}

/**
 * Prunes pending nodes and removes their ids from the deps of the remaining pending nodes. Already
 * pruned ids are a no-op. Throws PLAN_ILLEGAL on an unknown id or a done, failed or running node.
 */
export function pruneNodes(graph: PlanGraph, ids: readonly string[]): PlanGraph {
  const toPrune = new Set<string>();
  for (const id of ids) {
    const node = requireNode(graph, id);
    if (node.status === "pruned") continue;
    requirePending(graph, id, "prune");
    toPrune.add(id);
  }
  if (toPrune.size === 0) return graph;
  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      if (toPrune.has(node.id)) return { ...node, status: "pruned" };
      if (node.status === "pending" && node.deps.some((dep) => toPrune.has(dep))) {
        return { ...node, deps: node.deps.filter((dep) => !toPrune.has(dep)) };
      }
      return node;
    }),
  };
}

/** Replaces the deps of a pending node. Throws PLAN_ILLEGAL on an unknown or non-pending node. */
export function rewireNode(graph: PlanGraph, id: string, deps: readonly string[]): PlanGraph {
  requirePending(graph, id, "rewire");
  return replaceNode(graph, id, (node) => ({ ...node, deps: [...deps] }));
}

/** Changes fields of a pending node. Throws PLAN_ILLEGAL on an unknown or non-pending node. */
export function updateNode(graph: PlanGraph, id: string, patch: PlanNodePatch): PlanGraph {
  requirePending(graph, id, "update");
  return replaceNode(graph, id, (node) => ({
    ...node,
    ...(patch.title === undefined ? {} : { title: patch.title }),
    ...(patch.goal === undefined ? {} : { goal: patch.goal }),
    ...(patch.sections === undefined ? {} : { sections: [...patch.sections] }),
    ...(patch.gain === undefined ? {} : { gain: patch.gain }),
  }));
}

const TRANSITIONS: Record<PlanNodeStatus, readonly PlanNodeStatus[]> = {
  pending: ["running", "pruned"],
  running: ["done", "failed"],
  done: [],
  failed: [],
  pruned: [],
};

/**
 * Moves a node along its life cycle: pending → running → done | failed, or pending → pruned (same as
 * {@link pruneNodes}). `result`, when given, is stored on the node. Throws PLAN_ILLEGAL on an unknown id
 * or any other transition.
 */
export function setNodeStatus(
  graph: PlanGraph,
  id: string,
  status: PlanNodeStatus,
  result?: unknown,
): PlanGraph {
  const node = requireNode(graph, id);
  if (!TRANSITIONS[node.status].includes(status)) {
    throw illegal(`Node ${id} cannot go from ${node.status} to ${status}`, {
      id,
      from: node.status,
      to: status,
    });
  }
  const next = status === "pruned" ? pruneNodes(graph, [id]) : graph;
  return replaceNode(next, id, (current) => ({
    ...current,
    status,
    ...(result === undefined ? {} : { result }),
  }));
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}

function sameContent(node: PlanNode, proposal: PlanNodeProposal): boolean {
  return (
    node.type === proposal.type &&
    node.title === proposal.title &&
    node.goal === proposal.goal &&
    node.depth === proposal.depth &&
    node.gain === proposal.gain &&
    sameList(node.sections, proposal.sections)
  );
}

/**
 * Merges a whole DAG emitted by a planner into the current graph:
 * - done, failed, running and pruned nodes are kept exactly as they are; a proposal that differs from
 *   one of them (or re-proposes a pruned node) is listed in `ignored`;
 * - pending nodes absent from the proposal become pruned (their ids stay in others' deps, so legality
 *   flags any live node that still depends on them);
 * - pending nodes present take the proposal's fields (`rewired` when deps changed as a set, `updated`
 *   when anything else changed);
 * - new ids are appended as pending nodes in proposal order. A repeated id in `proposals` is appended
 *   as a further node so that legality reports DUPLICATE_ID.
 *
 * Does not check legality: call `checkLegality` on the result.
 */
export function applyProposedPlan(
  graph: PlanGraph,
  proposals: readonly PlanNodeProposal[],
): { graph: PlanGraph; diff: PlanDiff } {
  const diff: PlanDiff = { added: [], pruned: [], rewired: [], updated: [], ignored: [] };
  const existing = new Set(graph.nodes.map((node) => node.id));
  const byId = new Map<string, PlanNodeProposal>();
  const extra: PlanNodeProposal[] = [];
  for (const proposal of proposals) {
    if (byId.has(proposal.id) || !existing.has(proposal.id)) extra.push(proposal);
    if (!byId.has(proposal.id)) byId.set(proposal.id, proposal);
  }

  const nodes = graph.nodes.map((node): PlanNode => {
    const proposal = byId.get(node.id);
    if (node.status !== "pending") {
      const changed =
        proposal !== undefined &&
        (node.status === "pruned" || !sameContent(node, proposal) || !sameSet(node.deps, proposal.deps));
      if (changed) diff.ignored.push(node.id);
      return node;
    }
    if (proposal === undefined) {
      diff.pruned.push(node.id);
      return { ...node, status: "pruned" };
    }
    const rewired = !sameSet(node.deps, proposal.deps);
    const updated = !sameContent(node, proposal);
    if (rewired) diff.rewired.push(node.id);
    if (updated) diff.updated.push(node.id);
    if (!rewired && !updated) return node;
    return {
      ...fromProposal(proposal, "pending"),
      ...(node.result === undefined ? {} : { result: node.result }),
    };
  });

  for (const proposal of extra) {
    if (!diff.added.includes(proposal.id)) diff.added.push(proposal.id);
    nodes.push(fromProposal(proposal, "pending"));
  }
  return { graph: { ...graph, nodes }, diff };
}

/** The next free node id: `"T-<max+1>"` over the well-formed ids of the graph (`"T-1"` when none). */
export function nextNodeId(graph: PlanGraph): string {
  const max = graph.nodes.reduce((acc, node) => Math.max(acc, idNumber(node.id, "T-") ?? 0), 0);
  return `T-${max + 1}`;
}

/** Node counts per status, plus the total. */
export type PlanGraphSummary = Record<PlanNodeStatus, number> & { total: number };

/** Counts the nodes of the graph per status. */
export function graphSummary(graph: PlanGraph): PlanGraphSummary {
  const summary: PlanGraphSummary = { total: 0, pending: 0, running: 0, done: 0, failed: 0, pruned: 0 };
  for (const node of graph.nodes) {
    summary.total += 1;
    summary[node.status] += 1;
  }
  return summary;
}
