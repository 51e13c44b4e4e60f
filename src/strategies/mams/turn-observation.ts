/**
 * What a mams turn's calls returned, in the two forms the agents read: the raw observation as
 * blocks (one per passage, headed by its evidence id and source) that are cut into chunks, and
 * the short lines the next search prompt shows for the previous turn.
 */

import { sourceLocator } from "../../core/source.ts";
import type { Observation } from "../../kit/observation.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { describeAction, type SearchAction } from "../../kit/search-actions.ts";
import type { ObservationBlock } from "./protocol.ts";

/** The raw observation of a turn as blocks: one per passage, headed by its evidence id. */
export function observationBlocks(ctx: RunContext, observations: readonly Observation[]): ObservationBlock[] {
  return observations.flatMap((o) =>
    o.evidence.map((e) => {
      const source = ctx.evidence.getSource(e.sourceId);
      const where = source ? ` ${source.title} — ${sourceLocator(source)}` : "";
      return { header: `[${e.id}]${where} (from ${o.action})`, text: e.text.trim() };
    }),
  );
}

/** What the previous turn did, as the next search prompt shows it. */
export function turnLines(
  observations: readonly Observation[],
  repeats: readonly SearchAction[],
  capped: readonly SearchAction[],
): string[] {
  return [
    ...observations.map((o) =>
      o.ok
        ? `- ${o.action} → ${o.evidence.length} passage(s)${o.evidence.length ? ` (${o.evidence[0]!.id}…)` : ""}`
        : `- ${o.action} → FAILED (${o.error?.code ?? "error"})`,
    ),
    ...repeats.map((c) => `- ${describeAction(c)} → not run: made in an earlier turn`),
    ...capped.map((c) => `- ${describeAction(c)} → not run: over the per-turn cap`),
  ];
}
