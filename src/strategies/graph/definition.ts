/**
 * The `graph` strategy (DuMate-DeepResearch), the default with a model: router, coarse survey,
 * fixed outline, DAG planning with a reflection gate, inner search agents, rubric-driven stop.
 */

import { z } from "zod";
import type { StrategyDefinition } from "../types.ts";

/** Options of the graph strategy (none yet; unknown keys are refused). */
export const graphOptionsSchema = z.object({}).strict();

/** The graph strategy. The implementation loads when a run starts. */
export const graphStrategy: StrategyDefinition<z.infer<typeof graphOptionsSchema>> = {
  name: "graph",
  description:
    "Plan-graph research (default): frames the task, surveys, fixes an outline, then plans and re-plans a graph of search and analysis steps behind a reflection gate until the rubric finds no gap.",
  optionsSchema: graphOptionsSchema,
  roles: ["router", "planner", "searcher", "reader", "critic", "rubricer", "writer"],
  capabilities: { needsModel: true, web: true, local: true },
  // Its fixed outline and INITPLAN's first plan are its plan (review.ts).
  reviewsPlan: () => true,
  estimate({ webReading }) {
    const iterations = [1, 15] as const;
    const nodes = [iterations[0] + 2, iterations[1] * 4 + 3] as const;
    const rounds = [1, 10] as const;
    const reads = webReading ? 3 : 0;
    return {
      llm: [
        { role: "router", count: [1, 1], input: 1200, output: 700 },
        { role: "searcher", count: [nodes[0] * rounds[0], nodes[1] * rounds[1]], input: 5000, output: 500 },
        { role: "searcher", count: [nodes[0], nodes[1]], input: 6000, output: 600 },
        { role: "reader", count: [0, nodes[1] * rounds[1] * reads], input: 12000, output: 800 },
        { role: "writer", count: [1, 1], input: 15000, output: 1500 },
        { role: "rubricer", count: [1 + iterations[0], 1 + iterations[1]], input: 4000, output: 600 },
        { role: "planner", count: [iterations[0] + 1, 2 * iterations[1] + 1], input: 8000, output: 2000 },
        { role: "critic", count: [iterations[0], 3 * iterations[1]], input: 3000, output: 600 },
        { role: "writer", count: [4, 20], input: 8000, output: 1200 },
        { role: "writer", count: [1, 1], input: 10000, output: 1200 },
      ],
      tools: [nodes[0] * rounds[0], nodes[1] * rounds[1] * (3 + reads)],
    };
  },
  async run(ctx, input) {
    const { runGraph } = await import("./run.ts");
    return runGraph(ctx, {
      tools: input.tools,
      language: input.language,
      ...(input.clarify ? { clarify: input.clarify } : {}),
    });
  },
};
