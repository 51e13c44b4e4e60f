/**
 * The follow-up strategy's definition (name, options, estimate), light enough to register with
 * every Dossier: its run loads the follow-up itself (ask-about-strategy.ts: the writer's
 * prompt, searches, report assembly) on first use.
 */

import { z } from "zod";
import type { StrategyDefinition } from "../strategies/types.ts";
import type { ParentEvidence } from "./ask-about-parent.ts";

/** Name of the strategy. */
export const FOLLOW_UP_STRATEGY = "follow-up";

/** Options of the follow-up strategy. */
export const followUpOptionsSchema = z
  .object({
    about: z.string().min(1).describe("the id of the finished run the question is about"),
    maxSearches: z.number().int().min(0).max(5).optional().describe("searches at most (default 2)"),
  })
  .strict();
/** Options of the follow-up strategy. */
export type FollowUpOptions = z.infer<typeof followUpOptionsSchema>;

/** One search a follow-up made. */
export interface FollowUpSearch {
  query: string;
  ok: boolean;
  results: number;
}

/** The follow-up strategy; `load` reads the parent's evidence (before the run, or again on resume). */
export function followUpStrategy(
  load: (runId: string) => Promise<ParentEvidence>,
): StrategyDefinition<FollowUpOptions> {
  return {
    name: FOLLOW_UP_STRATEGY,
    description:
      "A follow-up question about a finished run: answered from its evidence, searching only if need be.",
    optionsSchema: followUpOptionsSchema,
    roles: ["writer"],
    capabilities: { needsModel: true, web: true, local: false },
    estimate(input) {
      const searches = input.options.maxSearches ?? 2;
      return {
        llm: [{ role: "writer", count: [1, searches ? 2 : 1], input: 6000, output: 400 }],
        tools: [0, searches],
      };
    },
    async run(ctx, input) {
      const parent = await load(input.options.about);
      const { runFollowUp } = await import("./ask-about-strategy.ts");
      return runFollowUp(
        ctx,
        parent,
        input.options.maxSearches ?? 2,
        (q) => input.tools.webSearch(q, { topK: 5 }),
        input.language,
      );
    },
  };
}
