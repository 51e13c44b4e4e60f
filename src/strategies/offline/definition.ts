/**
 * The `offline` strategy: no language model; extractive research over the local corpus.
 */

import { z } from "zod";
import type { StrategyDefinition } from "../types.ts";

/** The notice at the top of an offline report. */
export const OFFLINE_NOTICE =
  "Offline mode: no language model is configured, so this report is an extractive summary of passages from your documents (set DOSSIER_MODEL for full research).";

/** Options of the offline strategy. */
export const offlineOptionsSchema = z
  .object({
    maxFacets: z.number().int().min(1).max(12).optional().describe("sections (facets) at most"),
    sentencesPerFacet: z.number().int().min(1).max(12).optional().describe("sentences per section"),
  })
  .strict();

/** The offline strategy. The implementation loads when a run starts. */
export const offlineStrategy: StrategyDefinition<z.infer<typeof offlineOptionsSchema>> = {
  name: "offline",
  description:
    "No model: an extractive, fully cited summary of the passages of your documents that answer the question (local sources only).",
  optionsSchema: offlineOptionsSchema,
  roles: [],
  capabilities: { needsModel: false, web: false, local: true },
  // Its facets are its plan (review.ts).
  reviewsPlan: () => true,
  estimate() {
    return { llm: [], tools: [2, 6] };
  },
  async run(ctx, input) {
    const { runOffline } = await import("./run.ts");
    return runOffline(ctx, {
      tools: input.tools,
      language: input.language,
      notice: OFFLINE_NOTICE,
      ...(input.options.maxFacets === undefined ? {} : { maxFacets: input.options.maxFacets }),
      ...(input.options.sentencesPerFacet === undefined
        ? {}
        : { sentencesPerFacet: input.options.sentencesPerFacet }),
    });
  },
};
