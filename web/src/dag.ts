/**
 * The plan as a drawable DAG: the layout input (nodes and the edges between existing nodes)
 * and a small layered layout (a node's layer is one past its deepest dependency; nodes keep
 * their creation order within a layer). No layout library is needed for plans of this size.
 */

import type { NodeStatus, PlanNodeView } from "./run-state.ts";

/** The layout input. */
export interface DagInput {
  nodes: { id: string; label: string; status: NodeStatus }[];
  /** `from` is a dependency of `to`. */
  edges: { from: string; to: string }[];
}

/** A placed node. */
export interface PlacedNode {
  id: string;
  label: string;
  status: NodeStatus;
  layer: number;
  x: number;
  y: number;
}

/** The layout. */
export interface DagLayout {
  nodes: PlacedNode[];
  edges: { from: string; to: string; x1: number; y1: number; x2: number; y2: number }[];
  width: number;
  height: number;
}

/** Node box size and gaps of the layout. */
export const NODE_W = 168;
export const NODE_H = 44;
const GAP_X = 48;
const GAP_Y = 16;

/** The layout input of a plan: edges only between nodes that exist, no self-loops. */
export function dagInput(plan: readonly PlanNodeView[]): DagInput {
  const ids = new Set(plan.map((n) => n.id));
  const edges: DagInput["edges"] = [];
  for (const n of plan) {
    for (const d of new Set(n.deps)) if (ids.has(d) && d !== n.id) edges.push({ from: d, to: n.id });
  }
  return { nodes: plan.map((n) => ({ id: n.id, label: n.title || n.id, status: n.status })), edges };
}

/** Lays out `input` left to right in layers. A cycle (never legal in a plan) is cut. */
export function layoutDag(input: DagInput): DagLayout {
  const deps = new Map<string, string[]>(input.nodes.map((n) => [n.id, []]));
  for (const e of input.edges) deps.get(e.to)?.push(e.from);
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const layerOf = (id: string): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    let l = 0;
    for (const d of deps.get(id) ?? []) l = Math.max(l, layerOf(d) + 1);
    visiting.delete(id);
    layer.set(id, l);
    return l;
  };
  const rows = new Map<number, number>();
  const nodes: PlacedNode[] = input.nodes.map((n) => {
    const l = layerOf(n.id);
    const row = rows.get(l) ?? 0;
    rows.set(l, row + 1);
    return { ...n, layer: l, x: l * (NODE_W + GAP_X), y: row * (NODE_H + GAP_Y) };
  });
  const at = new Map(nodes.map((n) => [n.id, n]));
  const edges = input.edges.flatMap((e) => {
    const a = at.get(e.from);
    const b = at.get(e.to);
    if (!a || !b || a.layer >= b.layer) return [];
    return [{ ...e, x1: a.x + NODE_W, y1: a.y + NODE_H / 2, x2: b.x, y2: b.y + NODE_H / 2 }];
  });
  const layers = Math.max(0, ...nodes.map((n) => n.layer + 1));
  const maxRows = Math.max(0, ...rows.values());
  return {
    nodes,
    edges,
    width: layers ? layers * NODE_W + (layers - 1) * GAP_X : 0,
    height: maxRows ? maxRows * NODE_H + (maxRows - 1) * GAP_Y : 0,
  };
}
