/**
 * The `mams` strategy (multi-agent Markov-state workflow): a search agent steers from the
 * state ⟨memory, plan, report⟩; every observation is read in chunks by a state agent that
 * rewrites the memory and the plan and a report agent that integrates it into the report, side
 * by side.
 */

import { z } from "zod";
import { overrideSampling, type RoleSampling } from "../../llm/role-sampling.ts";
import type { StrategyDefinition } from "../types.ts";

/** Options of the mams strategy. */
export const mamsOptionsSchema = z
  .object({
    maxTurns: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .describe("tool-calling turns of the search agent at most"),
    maxCallsPerTurn: z.number().int().min(1).max(10).default(5).describe("tool calls one turn runs at most"),
    chunkTokens: z
      .number()
      .int()
      .min(500)
      .max(200_000)
      .default(24_000)
      .describe(
        "estimated tokens per observation chunk (the seed's observation window; split on paragraph boundaries)",
      ),
    chunkChars: z
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .optional()
      .describe("characters per observation chunk, instead of chunkTokens"),
    memoryTokens: z
      .number()
      .int()
      .min(10)
      .max(200_000)
      .default(16_384)
      .describe(
        "estimated tokens the memory may hold: a rewrite over it is re-asked once, then cut to it (default: the paper's 16,384-token responses)",
      ),
    topK: z.number().int().min(1).max(20).default(5).describe("results per search"),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .describe("sampling temperature of the agents' calls (default: the paper's 1.0)"),
    topP: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe("nucleus sampling of the agents' calls (default: the paper's 1.0)"),
  })
  .strict();

/**
 * The paper's sampling of its DeepResearch agents (App. D: temperature 1.0, top-p 1.0, responses
 * of up to 16,384 tokens), for each of the workflow's agents; the page reader's is its own.
 */
export const MAMS_SAMPLING: RoleSampling = {
  searcher: { temperature: 1, topP: 1, maxOutputTokens: 16_384 },
  state: { temperature: 1, topP: 1, maxOutputTokens: 16_384 },
  writer: { temperature: 1, topP: 1, maxOutputTokens: 16_384 },
};

/** Chunks one turn's observation makes, low and high (snippets fit one chunk; pages more). */
const CHUNKS = [1, 3] as const;

/** The mams strategy. The implementation loads when a run starts. */
export const mamsStrategy: StrategyDefinition<z.infer<typeof mamsOptionsSchema>> = {
  name: "mams",
  description:
    "Memory, plan and report as the whole state: a search agent issues parallel tool calls each turn, and every observation is read in chunks by a state agent (memory) and a report agent (report) side by side.",
  optionsSchema: mamsOptionsSchema,
  roles: ["searcher", "state", "writer", "reader"],
  capabilities: { needsModel: true, web: true, local: true },
  // The plan of its first turn is its plan (review.ts).
  reviewsPlan: () => true,
  sampling: (options) => overrideSampling(MAMS_SAMPLING, options),
  estimate({ options, webReading }) {
    const turns = [1, options.maxTurns] as const;
    const chunks = [turns[0] * CHUNKS[0], turns[1] * CHUNKS[1]] as const;
    const calls = [turns[0], turns[1] * options.maxCallsPerTurn] as const;
    return {
      llm: [
        { role: "searcher", count: [turns[0] + 1, turns[1] + 1], input: 10_000, output: 500 },
        { role: "state", count: [chunks[0], chunks[1]], input: 12_000, output: 3000 },
        { role: "writer", count: [chunks[0], chunks[1]], input: 16_000, output: 4000 },
        ...(webReading
          ? [
              {
                role: "reader" as const,
                count: [0, calls[1]] as [number, number],
                input: 12_000,
                output: 800,
              },
            ]
          : []),
      ],
      tools: [calls[0], calls[1]],
    };
  },
  async run(ctx, input) {
    const { runMams } = await import("./run.ts");
    const { maxTurns, maxCallsPerTurn, chunkTokens, chunkChars, memoryTokens, topK } = input.options;
    return runMams(ctx, {
      tools: input.tools,
      language: input.language,
      maxTurns,
      maxCallsPerTurn,
      chunkTokens,
      ...(chunkChars === undefined ? {} : { chunkChars }),
      memoryTokens,
      topK,
    });
  },
};
