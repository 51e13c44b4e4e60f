/**
 * The `minddr` strategy (MindDR): a planning agent splits the question into subtasks, parallel
 * DeepSearch agents research them in isolation, a report agent outlines and writes section by
 * section, then a coherence pass.
 */

import { z } from "zod";
import type { StrategyDefinition } from "../types.ts";

/** Options of the minddr strategy. */
export const minddrOptionsSchema = z
  .object({
    maxSteps: z
      .number()
      .int()
      .min(0)
      .max(30)
      .optional()
      .describe("model-driven steps per DeepSearch agent (bounded by the budget)"),
  })
  .strict();

/** Steps per agent the estimate assumes when `maxSteps` is not given. */
const ESTIMATE_STEPS = 12;

/** The minddr strategy. The implementation loads when a run starts. */
export const minddrStrategy: StrategyDefinition<z.infer<typeof minddrOptionsSchema>> = {
  name: "minddr",
  description:
    "Planner, parallel DeepSearch agents with a shared reasoning memory, then an outline-first report written section by section.",
  optionsSchema: minddrOptionsSchema,
  roles: ["planner", "searcher", "reader", "writer"],
  capabilities: { needsModel: true, web: true, local: true },
  estimate({ options, webReading }) {
    const agents = [3, 8] as const;
    const steps = [1, Math.max(1, options.maxSteps ?? ESTIMATE_STEPS)] as const;
    const reads = webReading ? 2 * steps[1] : 0;
    return {
      llm: [
        { role: "planner", count: [1, 1], input: 1500, output: 800 },
        { role: "searcher", count: [agents[0] * steps[0], agents[1] * steps[1]], input: 5000, output: 500 },
        { role: "searcher", count: [agents[0], agents[1]], input: 6000, output: 600 },
        { role: "reader", count: [0, agents[1] * reads], input: 12000, output: 800 },
        { role: "writer", count: [1, 1], input: 15000, output: 1500 },
        { role: "writer", count: [4, 20], input: 8000, output: 1200 },
        { role: "writer", count: [1, 1], input: 10000, output: 1200 },
      ],
      tools: [agents[0] * (1 + steps[0]), agents[1] * (4 + 5 * steps[1])],
    };
  },
  async run(ctx, input) {
    const { runMinddr } = await import("./run.ts");
    return runMinddr(ctx, {
      tools: input.tools,
      language: input.language,
      ...(input.options.maxSteps === undefined ? {} : { maxSteps: input.options.maxSteps }),
    });
  },
};
