/**
 * The offline strategy's plan point (`reviewPlan`): its facets — the distinctive terms each
 * section searches for — as a plan of items the user may approve, edit or reject before any
 * facet is searched. An edited plan's items are the facets searched, in its order.
 */

import { reviewPlanPoint } from "../../core/plan-review-point.ts";
import type { RunContext } from "../../kit/run-context.ts";

/** Facets a reviewed plan may hold at most. */
const MAX_REVIEWED_FACETS = 12;

/** The facets the run searches: `facets`, or the reviewed plan's items. Stops the run for review when it waits for one. */
export function reviewFacets(ctx: RunContext, facets: readonly string[]): string[] {
  const { plan, changes } = reviewPlanPoint(ctx, {
    strategy: "offline",
    kind: "facets",
    items: facets.map((facet, i) => ({ id: `F${i + 1}`, title: facet })),
    limits: { minItems: 1, maxItems: MAX_REVIEWED_FACETS, maxChildren: 0 },
  });
  return changes ? plan.items.map((item) => item.title) : [...facets];
}
