/**
 * The refresh strategy's definition (name, options, estimate), light enough to register with
 * every Dossier: its run loads the refresh itself (refresh-strategy.ts: page checks, section
 * writing, report checks, the diff) on first use.
 */

import { z } from "zod";
import type { StrategyDefinition } from "../strategies/types.ts";
import { REFRESH_STRATEGY, type RefreshParent } from "./refresh-parent.ts";

/** How many of the run's searches a refresh runs again at most (every entry point's limit). */
export const refreshMaxSearchesSchema = z
  .number()
  .int()
  .min(0)
  .max(20)
  .describe("the run's searches run again at most (default 8)");

/** Options of the refresh strategy (set by `refresh`, not by hand). */
export const refreshOptionsSchema = z
  .object({
    refreshOf: z.string().min(1).describe("the id of the finished run whose report is refreshed"),
    reportRoot: z
      .string()
      .min(1)
      .optional()
      .describe("the id of the run that wrote version 1 (with version, held by one run only)"),
    version: z.number().int().min(2).describe("the version this refresh writes"),
    maxSearches: refreshMaxSearchesSchema.optional(),
    sections: z.number().int().min(0).optional().describe("sections of the report (for the estimate)"),
    pages: z.number().int().min(0).optional().describe("cited pages (for the estimate)"),
  })
  .strict();
/** Options of the refresh strategy. */
export type RefreshOptions = z.infer<typeof refreshOptionsSchema>;

/** The refresh strategy; `load` reads the parent run (before the run, or again on resume). */
export function refreshStrategy(
  load: (runId: string) => Promise<RefreshParent>,
): StrategyDefinition<RefreshOptions> {
  return {
    name: REFRESH_STRATEGY,
    description:
      "A new version of a finished run's report: only sections whose evidence changed are rewritten.",
    optionsSchema: refreshOptionsSchema,
    roles: ["writer"],
    capabilities: { needsModel: true, web: true, local: false },
    estimate(input) {
      const sections = input.options.sections ?? 8;
      const searches = input.options.maxSearches ?? 8;
      return {
        llm: [{ role: "writer", count: [0, sections], input: 5000, output: 1500 }],
        tools: [0, (input.options.pages ?? 10) + searches * 3],
      };
    },
    async run(ctx, input) {
      const parent = await load(input.options.refreshOf);
      const { runRefresh } = await import("./refresh-strategy.ts");
      return runRefresh(ctx, parent, input.tools, input.options);
    },
  };
}
