/**
 * The graph strategy's plan point (`reviewPlan`): after the fixed outline and INITPLAN (Algorithm
 * 1, lines 2–3), the outline's level-1 sections, each with the first plan's subtasks that serve
 * it (a subtask under the first section it serves; its other sections, type and dependencies are
 * its extras), as a plan the user may approve, edit or reject before any plan node runs.
 *
 * An edited plan is executed as approved: its items are the outline, in order (renumbered `1`,
 * `2`…; a section keeps its subsections and evidence hints unless reworded); its sub-items are
 * the plan's nodes — kept ones keep their id, type and the dependencies that still exist, and
 * serve their sections as renumbered (plus the section they are listed under when moved); new
 * ones are search nodes for the section they are listed under. No node is added for a section
 * the plan leaves without one. The first cycle runs INITPLAN's chosen actions that remain and
 * every new node that is ready (the ready frontier when none is).
 */

import { DossierError } from "../../core/errors.ts";
import { createOutline, expandSection, flattenOutline, type Outline } from "../../core/outline.ts";
import { nextNodeId, type PlanNode, readyFrontier } from "../../core/plan-graph.ts";
import { checkLegality } from "../../core/plan-graph-legality.ts";
import { reviewPlanPoint } from "../../core/plan-review-point.ts";
import type { PlanItem, ReviewPlan, ReviewPlanInput } from "../../core/review-plan.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { FirstPlan } from "./init.ts";
import { repairGraph } from "./plan.ts";
import type { GraphRun } from "./run-state.ts";

/** Level-1 sections of a reviewed outline at most. */
const MAX_SECTIONS = 12;
/** Subtasks listed under one section at most. */
const MAX_SUBTASKS = 8;

/** What the run goes on with after its plan point. */
export interface ReviewedGraphPlan {
  planned: PlannedOutline;
  /** The first cycle's actions (ids of ready nodes). */
  actions: string[];
}

/**
 * The outline and first plan the run goes on with: its own, or the reviewed plan's (then the
 * run's graph and context are replaced, and the new outline and plan announced). Stops the run
 * for review when it waits for one.
 */
export function reviewGraphPlan(
  ctx: RunContext,
  run: GraphRun,
  planned: PlannedOutline,
  first: FirstPlan,
  maxDepth: number,
): ReviewedGraphPlan {
  const { plan, changes } = reviewPlanPoint(ctx, graphPlan(run, planned));
  if (!changes) return { planned, actions: first.actions };
  return applyGraphPlan(ctx, run, plan, first, maxDepth, planned.title);
}

/** The outline and the first plan as a plan of sections with the subtasks serving them. */
export function graphPlan(run: GraphRun, planned: PlannedOutline): ReviewPlanInput {
  const { sections } = planned.outline;
  const nodes = run.graph.nodes.filter((n) => !run.coarse.has(n.id) && n.status === "pending");
  const parentOf = new Map<string, string>();
  const top = (id: string) => id.split(".")[0]!;
  for (const n of nodes) {
    const served = (n.sections ?? []).map(top).find((s) => sections.some((x) => x.id === s));
    const viaDep = n.deps.map((d) => parentOf.get(d)).find(Boolean);
    parentOf.set(n.id, served ?? viaDep ?? sections[0]?.id ?? "1");
  }
  return {
    strategy: "graph",
    kind: "sections",
    ...(planned.title.trim() ? { title: planned.title } : {}),
    items: sections.map((s) => ({
      id: s.id,
      title: s.title,
      ...(s.plan.trim() ? { description: s.plan } : {}),
      extras: {
        hints: planned.evidenceHints[s.id] ?? [],
        ...(s.children.length
          ? {
              subsections: s.children.map((c) => ({
                title: c.title,
                plan: c.plan,
                hints: planned.evidenceHints[c.id] ?? [],
              })),
            }
          : {}),
      },
      children: nodes
        .filter((n) => parentOf.get(n.id) === s.id)
        .map((n) => ({
          id: n.id,
          title: n.title,
          description: n.goal,
          extras: { type: n.type, deps: n.deps, sections: n.sections ?? [] },
        })),
    })),
    limits: {
      minItems: 1,
      maxItems: MAX_SECTIONS,
      maxChildren: MAX_SUBTASKS,
      childKind: "subtask",
      textExtras: ["subsections", "hints"],
    },
  };
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/** The approved plan as the run's outline, graph and first actions. */
function applyGraphPlan(
  ctx: RunContext,
  run: GraphRun,
  plan: ReviewPlan,
  first: FirstPlan,
  maxDepth: number,
  fallbackTitle: string,
): ReviewedGraphPlan {
  const before = new Map(run.graph.nodes.map((n) => [n.id, n]));
  const { outline, hints, renumbered } = outlineOf(plan);
  const known = new Set(flattenOutline(outline).map((s) => s.id));
  const remap = (old: string): string | null => {
    const [head, ...rest] = old.split(".");
    const id = renumbered.get(head!);
    if (!id) return null;
    const full = [id, ...rest].join(".");
    return known.has(full) ? full : id;
  };
  // Node ids: a kept node keeps its own, a new one takes the next free number.
  let next = Number(nextNodeId(run.graph).slice(2));
  const listed = plan.items.flatMap((item, i) =>
    (item.children ?? []).map((child) => ({ child, section: String(i + 1) })),
  );
  const idOf = new Map(
    listed.map(({ child }) => {
      const kept = before.get(child.id);
      return [child.id, kept && !run.coarse.has(kept.id) ? kept.id : `T-${next++}`] as const;
    }),
  );
  const planIds = new Set(idOf.values());
  const coarse = run.graph.nodes.filter((n) => run.coarse.has(n.id));
  const depthOf = new Map(coarse.map((n) => [n.id, n.depth]));
  const depsOf = new Map(
    listed.map(({ child }) => [
      idOf.get(child.id)!,
      strings(child.extras?.deps).filter(
        (d) => planIds.has(d) || (run.coarse.has(d) && before.get(d)?.type !== "report"),
      ),
    ]),
  );
  const depth = (id: string, seen = new Set<string>()): number => {
    const known = depthOf.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 2;
    seen.add(id);
    const d = Math.max(2, ...(depsOf.get(id) ?? []).map((dep) => depth(dep, seen) + 1));
    depthOf.set(id, d);
    return d;
  };
  const nodes: PlanNode[] = listed.map(({ child, section }) => {
    const id = idOf.get(child.id)!;
    const kept = before.get(child.id);
    const mapped = [...new Set(strings(child.extras?.sections).flatMap((s) => remap(s) ?? []))];
    const under = mapped.some((s) => s.split(".")[0] === section);
    return {
      id,
      type: child.extras?.type === "llm" ? "llm" : "search",
      title: child.title.slice(0, 120),
      goal: child.description ?? child.title,
      deps: depsOf.get(id) ?? [],
      depth: depth(id),
      sections: under ? mapped : [section, ...mapped],
      ...(kept?.gain !== undefined ? { gain: kept.gain } : {}),
      status: "pending",
    };
  });
  const graph = repairGraph({ nodes: [...coarse, ...nodes] }, maxDepth);
  const problems = checkLegality(graph, { maxDepth });
  if (problems.length > 0) {
    throw new DossierError("PLAN_ILLEGAL", `the reviewed plan is not a legal plan: ${problems[0]!.message}`, {
      details: { violations: problems.slice(0, 3) },
    });
  }
  run.graph = graph;
  const planned: PlannedOutline = { title: plan.title ?? fallbackTitle, outline, evidenceHints: hints };
  const outlineText = flattenOutline(outline)
    .map((s) => `${s.id} ${s.title}`)
    .join("; ");
  run.base.context = run.base.context.replace(
    /\nOutline sections: .*$/s,
    `\nOutline sections: ${outlineText}`,
  );
  const added = nodes.filter((n) => !before.has(n.id)).map((n) => n.id);
  const dropped = [...before.values()]
    .filter((n) => !run.coarse.has(n.id) && !planIds.has(n.id))
    .map((n) => n.id);
  ctx.emit({ type: "outline-update", outline, reason: "plan review" });
  ctx.emit({
    type: "plan-update",
    iteration: 0,
    graph,
    diff: { added, pruned: dropped, rewired: [], updated: [], ignored: [] },
  });
  const ready = readyFrontier(graph).filter((n) => n.type === "search" || n.type === "llm");
  const chosen = ready.filter((n) => first.actions.includes(n.id) || added.includes(n.id));
  return { planned, actions: (chosen.length > 0 ? chosen : ready).map((n) => n.id) };
}

/** The approved sections as the outline (with kept subsections), their evidence hints, and old id → new id. */
function outlineOf(plan: ReviewPlan): {
  outline: Outline;
  hints: Record<string, string[]>;
  renumbered: Map<string, string>;
} {
  let outline = createOutline(
    plan.items.map((item) => ({ title: item.title, plan: item.description ?? "" })),
    { minSections: 1, maxSections: MAX_SECTIONS },
  );
  const hints: Record<string, string[]> = {};
  const renumbered = new Map<string, string>();
  plan.items.forEach((item: PlanItem, i) => {
    const id = String(i + 1);
    // A proposed section's id is its position (`3`); an added one's is `new-<n>`.
    if (/^\d+$/.test(item.id)) renumbered.set(item.id, id);
    hints[id] = strings(item.extras?.hints);
    const subsections = Array.isArray(item.extras?.subsections)
      ? (item.extras.subsections as { title?: unknown; plan?: unknown; hints?: unknown }[]).filter(
          (s) => typeof s.title === "string" && typeof s.plan === "string",
        )
      : [];
    if (subsections.length >= 2) {
      outline = expandSection(
        outline,
        id,
        subsections.slice(0, 7).map((s) => ({ title: s.title as string, plan: s.plan as string })),
      );
      subsections.slice(0, 7).forEach((s, j) => {
        hints[`${id}.${j + 1}`] = strings(s.hints);
      });
    }
  });
  return { outline, hints, renumbered };
}
