/**
 * Legality of a plan graph. A legal plan has unique well-formed ids, deps that exist, are not pruned and
 * have a strictly smaller depth (so same-depth nodes never depend on each other and the graph is
 * acyclic), depths within `[1, maxDepth]`, and exactly one live report node that depends directly on
 * every other live node. "Live" means not pruned.
 */

import { DossierError } from "./errors.ts";
import { PLAN_NODE_ID_PATTERN, type PlanGraph, type PlanNode } from "./plan-graph.ts";

/** Codes of {@link PlanViolation}. */
export const PLAN_VIOLATION_CODES = [
  "DUPLICATE_ID",
  "BAD_ID",
  "MISSING_DEP",
  "PRUNED_DEP",
  "SELF_DEP",
  "CYCLE",
  "DEP_DEPTH",
  "DEPTH_LIMIT",
  "REPORT_COUNT",
  "REPORT_DEPS",
] as const;

/** The code of a {@link PlanViolation}. */
export type PlanViolationCode = (typeof PLAN_VIOLATION_CODES)[number];

/** One broken rule of a plan graph. */
export interface PlanViolation {
  /** Which rule is broken. */
  code: PlanViolationCode;
  /** The node at fault, when there is one. */
  nodeId?: string;
  /** A sentence a planner model can act on. */
  message: string;
}

/** Options of {@link checkLegality}. */
export interface LegalityOptions {
  /** Largest allowed node depth (default 5). */
  maxDepth?: number;
}

/** Default {@link LegalityOptions.maxDepth}. */
export const PLAN_DEFAULT_MAX_DEPTH = 5;

/** Strongly connected components with more than one node (Tarjan), each in creation order. */
function cycles(nodes: readonly PlanNode[], byId: ReadonlyMap<string, PlanNode>): string[][] {
  const order = new Map(nodes.map((node, i) => [node.id, i] as const));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (id: string): void => {
    index.set(id, counter);
    low.set(id, counter);
    counter += 1;
    stack.push(id);
    onStack.add(id);
    for (const dep of byId.get(id)?.deps ?? []) {
      if (dep === id || !byId.has(dep)) continue;
      if (!index.has(dep)) {
        visit(dep);
        low.set(id, Math.min(low.get(id)!, low.get(dep)!));
      } else if (onStack.has(dep)) {
        low.set(id, Math.min(low.get(id)!, index.get(dep)!));
      }
    }
    if (low.get(id) === index.get(id)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== id);
      if (component.length > 1) found.push(component.sort((a, b) => order.get(a)! - order.get(b)!));
    }
  };
  for (const node of nodes) if (!index.has(node.id)) visit(node.id);
  return found.sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
}

/**
 * Every rule the graph breaks, in a stable order: per node (in creation order) its id, depth and dep
 * problems, then cycles, then report rules. An empty list means the graph is legal. Dep rules other
 * than PRUNED_DEP apply to every node; PRUNED_DEP and the report rules concern live nodes only.
 */
export function checkLegality(graph: PlanGraph, options: LegalityOptions = {}): PlanViolation[] {
  const { maxDepth = PLAN_DEFAULT_MAX_DEPTH } = options;
  const violations: PlanViolation[] = [];
  const add = (code: PlanViolationCode, nodeId: string | undefined, message: string): void => {
    violations.push(nodeId === undefined ? { code, message } : { code, nodeId, message });
  };
  const byId = new Map<string, PlanNode>();
  for (const node of graph.nodes) if (!byId.has(node.id)) byId.set(node.id, node);

  const seen = new Set<string>();
  for (const node of graph.nodes) {
    const id = node.id;
    if (seen.has(id)) add("DUPLICATE_ID", id, `Id ${id} is used by more than one node`);
    seen.add(id);
    if (!PLAN_NODE_ID_PATTERN.test(id))
      add("BAD_ID", id, `Id "${id}" is not of the form T-<positive integer>`);
    if (!Number.isInteger(node.depth) || node.depth < 1 || node.depth > maxDepth) {
      add(
        "DEPTH_LIMIT",
        id,
        `Node ${id} has depth ${node.depth}; depth must be an integer in 1..${maxDepth}`,
      );
    }
    const live = node.status !== "pruned";
    for (const depId of node.deps) {
      if (depId === id) {
        add("SELF_DEP", id, `Node ${id} depends on itself`);
        continue;
      }
      const dep = byId.get(depId);
      if (dep === undefined) {
        add("MISSING_DEP", id, `Node ${id} depends on ${depId}, which is not in the graph`);
        continue;
      }
      if (live && dep.status === "pruned") {
        add("PRUNED_DEP", id, `Node ${id} depends on ${depId}, which is pruned`);
      }
      if (dep.depth >= node.depth) {
        add(
          "DEP_DEPTH",
          id,
          `Node ${id} (depth ${node.depth}) depends on ${depId} (depth ${dep.depth}); a dependency must be shallower`,
        );
      }
    }
  }

  for (const component of cycles(graph.nodes, byId)) {
    add("CYCLE", component[0], `Nodes ${component.join(", ")} depend on each other in a cycle`);
  }

  const liveNodes = graph.nodes.filter((node) => node.status !== "pruned");
  const reports = liveNodes.filter((node) => node.type === "report");
  if (reports.length === 0)
    add("REPORT_COUNT", undefined, "The plan has no live report node; it needs exactly one");
  for (const extra of reports.slice(1)) {
    add(
      "REPORT_COUNT",
      extra.id,
      `Node ${extra.id} is a second live report node; the plan needs exactly one`,
    );
  }
  for (const report of reports) {
    const deps = new Set(report.deps);
    for (const node of liveNodes) {
      if (node.type === "report" || deps.has(node.id)) continue;
      add("REPORT_DEPS", report.id, `Report node ${report.id} does not depend on live node ${node.id}`);
    }
  }
  return violations;
}

/** Throws DossierError("PLAN_ILLEGAL") with `details.violations` when the graph breaks any rule. */
export function assertLegal(graph: PlanGraph, options: LegalityOptions = {}): void {
  const violations = checkLegality(graph, options);
  if (violations.length === 0) return;
  const summary = violations
    .slice(0, 5)
    .map((violation) => violation.message)
    .join("; ");
  const more = violations.length > 5 ? ` (and ${violations.length - 5} more)` : "";
  throw new DossierError("PLAN_ILLEGAL", `Illegal plan: ${summary}${more}`, { details: { violations } });
}
