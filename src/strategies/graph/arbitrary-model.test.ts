/**
 * graph with an arbitrary-content model (schema-valid answers, random content), six seeds: the
 * plan it fixes is researched — at least one search node runs after the outline — and the report
 * node starts only when nothing it depends on is pending.
 */

import { afterEach, describe, expect, it } from "vitest";
import { arbitraryAnswers } from "../../../test/research/arbitrary-model.ts";
import { dependencyOrderViolations } from "../../../test/research/plan-order.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent } from "../../core/events.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

interface LoggedNode {
  id: string;
  type: string;
  status: string;
  deps: string[];
}

/** Search nodes started after the outline node ended. */
function searchesAfterOutline(events: readonly DossierEvent[]): number {
  const outlineEnd = events.find((e) => e.type === "node-end" && e.nodeId === outlineId(events));
  return events.filter(
    (e) => e.type === "node-start" && e.nodeType === "search" && e.seq > (outlineEnd?.seq ?? Infinity),
  ).length;
}

function outlineId(events: readonly DossierEvent[]): string | undefined {
  const start = events.find((e) => e.type === "node-start" && e.nodeType === "outline");
  return start && "nodeId" in start ? start.nodeId : undefined;
}

/** The plan as it stood when the report node started. */
function graphAtReport(events: readonly DossierEvent[]): LoggedNode[] {
  const start = events.find((e) => e.type === "node-start" && e.nodeType === "report");
  const updates = events.filter((e) => e.type === "plan-update" && e.seq < (start?.seq ?? 0));
  return (updates.at(-1) as unknown as { graph: { nodes: LoggedNode[] } }).graph.nodes ?? [];
}

describe("graph with an arbitrary-content model", () => {
  it.each([1, 2, 3, 4, 5, 6])(
    "seed %i: researches its plan; the report waits for its dependencies",
    async (seed) => {
      const answer = arbitraryAnswers(seed);
      world = await startResearchWorld({ override: (_role, body) => answer(body) });
      const result = await world.research({ query: "How is topic adoption changing?" });
      const events = result.events;
      const after = searchesAfterOutline(events);
      const nodes = graphAtReport(events);
      const report = nodes.find((n) => n.type === "report" && n.status === "pending");
      expect(after).toBeGreaterThan(0);
      expect(report).toBeDefined();
      const pendingDeps = report!.deps.filter(
        (d) =>
          nodes.find((n) => n.id === d)?.status !== "done" &&
          nodes.find((n) => n.id === d)?.status !== "failed",
      );
      expect(pendingDeps).toEqual([]);
      expect(dependencyOrderViolations(events)).toEqual([]);
      const stop = events.find((e) => e.type === "decision" && e.decision === "stop");
      expect(result.record.stopReason).toBe(stop && "reason" in stop ? stop.reason : undefined);
      const doc = result.outcome?.report;
      if (doc) expect(citedNumbers(doc.body).every((n) => n >= 1 && n <= doc.references.length)).toBe(true);
    },
  );
});
