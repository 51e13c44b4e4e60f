/**
 * The `minddr` strategy (MindDR): a planning agent splits the question into subtasks, parallel
 * DeepSearch agents research them in isolation over a shared reasoning memory, and a report
 * agent outlines and writes. `protocol: "native"` runs the paper's settings — each DeepSearch
 * agent's prompt is its appended ReAct trajectory (windowed at the model's context), and the
 * report is written in one pass — while `json` (the default) keeps Dossier's compact agent
 * (seed queries, a trace rebuilt from state) and the section-by-section writer, with the
 * report's frame (title, introduction, conclusion) written alongside the sections (`frame`:
 * "after" writes it by a coherence pass over the written draft instead); `deepSearch` and
 * `report` choose each part explicitly.
 */

import { z } from "zod";
import type { EstimatedCall, Range, StrategyDefinition, StrategyEstimate } from "../types.ts";
import { minddrSettings } from "./settings.ts";

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
    protocol: z
      .enum(["json", "native"])
      .default("json")
      .describe(
        "json: Dossier's compact agents and section-by-section report; native: the paper's settings (deepSearch appended, report single-pass) as the defaults",
      ),
    deepSearch: z
      .enum(["appended", "compact"])
      .optional()
      .describe(
        "appended: the paper's ReAct agent, its whole trajectory in its prompt (windowed at the context), choosing its first step; compact: seed queries, then a trace rebuilt from state (default: by protocol)",
      ),
    report: z
      .enum(["single-pass", "sections"])
      .optional()
      .describe(
        "single-pass: the paper's report agent, outline then the whole report in one call; sections: one writer call per section and one for the report's frame (default: by protocol)",
      ),
    frame: z
      .enum(["alongside", "after"])
      .optional()
      .describe(
        "sections report: the title, introduction and conclusion written alongside the sections from what each writer was given (default: no editor call after the sections, as the paper's report agent has none), or after them by a coherence pass that reads the whole draft and may revise section openings and closings",
      ),
    contextWindow: z
      .number()
      .int()
      .min(2000)
      .max(10_000_000)
      .optional()
      .describe(
        "appended deep search: the searcher model's context window in tokens, for models the table does not know (default: known, else 131072; at most 131072 is used)",
      ),
  })
  .strict()
  .superRefine((options, issues) => {
    // An appended agent chooses every step, the first included: with none it could not search.
    if (options.maxSteps === 0 && minddrSettings(options).deepSearch === "appended")
      issues.addIssue({
        code: "custom",
        message:
          "maxSteps 0 leaves the appended DeepSearch agent no step (it runs no seed queries); give 1 or more",
      });
    if (options.frame !== undefined && minddrSettings(options).report !== "sections")
      issues.addIssue({
        code: "custom",
        message: 'frame applies to the sections report only (report: "sections" or protocol: "json")',
      });
    if (options.contextWindow !== undefined && minddrSettings(options).deepSearch !== "appended")
      issues.addIssue({
        code: "custom",
        // On the options as a whole: the value is in range, its combination with the others is not.
        message:
          'contextWindow applies to the appended DeepSearch agent only (deepSearch: "appended" or protocol: "native")',
      });
  });

/** Options of the minddr strategy as parsed. */
export type MinddrStrategyOptions = z.infer<typeof minddrOptionsSchema>;

/** Estimated tokens a step of the appended agent adds to its trajectory (up to 5 observations). */
const APPENDED_TOKENS_PER_STEP = 2500;
/** Estimated tokens of an appended step's prompt besides its trajectory. */
const APPENDED_BASE_TOKENS = 3000;
/** The longest context an appended step uses (the paper's 128K). */
const APPENDED_CONTEXT_CAP = 131_072;

/** The minddr strategy. The implementation loads when a run starts. */
export const minddrStrategy: StrategyDefinition<MinddrStrategyOptions> = {
  name: "minddr",
  description:
    "Planner, parallel DeepSearch agents with a shared reasoning memory, then an outlined report (section by section, or in one pass under the paper's settings).",
  optionsSchema: minddrOptionsSchema,
  roles: ["planner", "searcher", "reader", "writer"],
  capabilities: { needsModel: true, web: true, local: true },
  // Its subtasks are its plan (review.ts).
  reviewsPlan: () => true,
  estimate: ({ options, webReading }) => estimateMinddr(options, webReading),
  async run(ctx, input) {
    const { runMinddr } = await import("./run.ts");
    const settings = minddrSettings(input.options);
    const { maxSteps, contextWindow, frame } = input.options;
    return runMinddr(ctx, {
      tools: input.tools,
      language: input.language,
      deepSearch: settings.deepSearch,
      report: settings.report,
      ...(frame === undefined ? {} : { frame }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(contextWindow === undefined ? {} : { contextWindow }),
    });
  },
};

/** The call structure of a run with these options. */
export function estimateMinddr(options: MinddrStrategyOptions, webReading: boolean): StrategyEstimate {
  const settings = minddrSettings(options);
  const agents = [3, 8] as const;
  const steps = [1, Math.max(1, settings.maxSteps)] as const;
  const reads = webReading ? 2 * steps[1] : 0;
  const appended = settings.deepSearch === "appended";
  // An appended step's prompt grows with its trajectory, up to the context: the mean over the steps.
  const window = Math.min(options.contextWindow ?? APPENDED_CONTEXT_CAP, APPENDED_CONTEXT_CAP);
  const appendedInput = Math.min(
    window,
    APPENDED_BASE_TOKENS + (APPENDED_TOKENS_PER_STEP * (steps[1] + 1)) / 2,
  );
  const search: EstimatedCall[] = [
    appended
      ? {
          role: "searcher",
          count: [agents[0], agents[1] * steps[1]],
          input: Math.round(appendedInput),
          output: 600,
        }
      : { role: "searcher", count: [agents[0] * steps[0], agents[1] * steps[1]], input: 5000, output: 500 },
    { role: "searcher", count: [agents[0], agents[1]], input: 6000, output: 600 },
    { role: "reader", count: [0, agents[1] * reads], input: 12000, output: 800 },
  ];
  const writing: EstimatedCall[] =
    settings.report === "single-pass"
      ? [
          { role: "writer", count: [1, 1], input: 15000, output: 1500 },
          { role: "writer", count: [1, 1], input: 45000, output: 6000 },
        ]
      : [
          { role: "writer", count: [1, 1], input: 15000, output: 1500 },
          { role: "writer", count: [4, 20], input: 8000, output: 1200 },
          { role: "writer", count: [1, 1], input: 10000, output: 1200 },
        ];
  // Compact agents run up to five seed searches first; an appended agent chooses every action.
  const tools: Range = appended
    ? [agents[0], agents[1] * 5 * steps[1]]
    : [agents[0] * (1 + steps[0]), agents[1] * (4 + 5 * steps[1])];
  return {
    llm: [{ role: "planner", count: [1, 1], input: 1500, output: 800 }, ...search, ...writing],
    tools,
  };
}
