/**
 * The `smtl` strategy (SMTL, "search more, think less"): a plan of verifiable goals, several
 * tool calls per step run at once, plan refinement every few steps, a plan-centric context
 * reset, and a short answer verified by the evidence it cites. Options choose the protocol (JSON,
 * or SMTL's own tags for its checkpoints) and the mode: deep research (subtasks, then a full cited
 * report; the default, so `dossier research --strategy smtl` writes a report) or the short answer
 * of deep search (`mode: "answer"`, which `dossier ask` and the QA evaluation pass).
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { overrideSampling, type RoleSampling } from "../../llm/role-sampling.ts";
import type { EstimatedCall, Range, StrategyDefinition, StrategyEstimate } from "../types.ts";

/** Options of the smtl strategy. */
export const smtlOptionsSchema = z
  .object({
    maxSteps: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(100)
      .describe("tool-calling steps at most; at the cap the answer is written from the evidence"),
    refineEvery: z.number().int().min(1).max(100).default(5).describe("steps between plan refinements"),
    errorBudget: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .describe("malformed actions tolerated before answering from the evidence"),
    contextTokens: z
      .number()
      .int()
      .min(1000)
      .max(2_000_000)
      .optional()
      .describe(
        "conversation size (estimated tokens) that forces a refinement and a reset to the plan (default: the model's context window, at most 131072)",
      ),
    contextWindow: z
      .number()
      .int()
      .min(2000)
      .max(10_000_000)
      .optional()
      .describe(
        "the models' context window in tokens, for models the table does not know (default: the seed's 131072); sizes the reset and the page window",
      ),
    topK: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe("results per web search (default: 20 in the native protocol, as the seed's code; 5 in json)"),
    protocol: z
      .enum(["json", "native"])
      .default("json")
      .describe(
        "json: structured output (any model); native: SMTL's own tags (<plan>, <summary>, <tool_call>, <answer>) for its checkpoints, in either mode",
      ),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .describe("sampling temperature of the agent's calls (default: the seed's 1.0)"),
    topP: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe("nucleus sampling of the agent's calls (default: the seed's 0.9)"),
    systemPrompt: z
      .object({ searcher: z.string().min(1).describe("file holding the agent's system prompt") })
      .strict()
      .optional()
      .describe(
        "native protocol: a file per role whose text replaces Dossier's system prompt (a checkpoint's own prompt)",
      ),
    mode: z
      .enum(["research", "answer", "search"])
      .default("research")
      .describe(
        "research: subtasks, then a full cited report (the seed's deep-research mode; dossier research); answer: a short verified answer (deep search; dossier ask, QA evaluation, rollouts); search: the earlier name of answer",
      ),
  })
  .strict();

/**
 * The seed's sampling of the agent's calls (its inference defaults: temperature 1.0, top-p 0.9,
 * 8,192 output tokens), in either protocol; the page reader's is not stated (provider defaults).
 */
export const SMTL_SAMPLING: RoleSampling = { searcher: { temperature: 1, topP: 0.9, maxOutputTokens: 8192 } };

/** Results per web search by protocol: the seed's code asks for 20. */
export const DEFAULT_TOP_K = { native: 20, json: 5 } as const;

/** Steps the estimate assumes a question takes, at most (the seed's runs average about 60 of 100). */
const TYPICAL_STEPS = 20;

/** The smtl strategy. The implementation loads when a run starts. */
export const smtlStrategy: StrategyDefinition<z.infer<typeof smtlOptionsSchema>> = {
  name: "smtl",
  description:
    "Search more, think less: several parallel tool calls per step and plan-centric context resets; a full cited report over subtasks (mode research, default) or a short verified answer (mode answer, dossier ask).",
  optionsSchema: smtlOptionsSchema,
  roles: ["searcher", "reader"],
  capabilities: { needsModel: true, web: true, local: true },
  // The deep-research mode's subtask list is its plan, in the JSON protocol (review.ts).
  reviewsPlan: (options) => options.mode === "research" && options.protocol === "json",
  sampling: (options) => overrideSampling(SMTL_SAMPLING, options),
  estimate({ options, webReading }): StrategyEstimate {
    const steps = [1, Math.min(options.maxSteps, Math.max(TYPICAL_STEPS, 1))] as const;
    const reads: Range = webReading ? [0, steps[1] * 2] : [0, 0];
    const reader: EstimatedCall = { role: "reader", count: reads, input: 12_000, output: 800 };
    const tools: Range = [steps[0], steps[1] * 5];
    if (options.mode === "research") {
      // The subtask list, the steps, an answer per subtask (at most 8), the report.
      return {
        llm: [
          { role: "searcher", count: [steps[0] + 2, steps[1] + 9], input: 12_000, output: 600 },
          { role: "searcher", count: [1, 1], input: 60_000, output: 4_000 },
          reader,
        ],
        tools,
      };
    }
    const refines = Math.floor(steps[1] / options.refineEvery);
    return {
      llm: [
        { role: "searcher", count: [steps[0] + 1, steps[1] + 1], input: 12_000, output: 600 },
        { role: "searcher", count: [0, refines], input: 20_000, output: 800 },
        reader,
      ],
      tools,
    };
  },
  async run(ctx, input) {
    const { maxSteps, refineEvery, errorBudget, contextTokens, contextWindow, topK, mode, protocol } =
      input.options;
    const options = {
      tools: input.tools,
      language: input.language,
      maxSteps,
      errorBudget,
      ...(contextTokens === undefined ? {} : { contextTokens }),
      ...(contextWindow === undefined ? {} : { contextWindow }),
      topK: topK ?? DEFAULT_TOP_K[protocol],
      ...(input.options.temperature === undefined ? {} : { temperature: input.options.temperature }),
      ...(input.options.topP === undefined ? {} : { topP: input.options.topP }),
      refineEvery,
    };
    const research = mode === "research";
    const { runSmtlLoop } = await import("./run.ts");
    if (input.options.systemPrompt && protocol !== "native")
      throw new DossierError(
        "INPUT_INVALID",
        "smtl: systemPrompt applies to the native protocol (--option protocol=native)",
      );
    if (protocol === "native") {
      if (input.options.systemPrompt) {
        const { readSystemPromptFile } = await import("../../kit/system-prompt-file.ts");
        const path = input.options.systemPrompt.searcher;
        Object.assign(options, {
          systemPrompt: await readSystemPromptFile(path, "smtl systemPrompt.searcher"),
        });
      }
      const { tagProtocol } = await import("./tags.ts");
      return runSmtlLoop(ctx, options, tagProtocol(research ? "research" : "answer"));
    }
    if (research) {
      const { jsonResearchProtocol } = await import("./json-research.ts");
      return runSmtlLoop(ctx, options, jsonResearchProtocol);
    }
    const { jsonAnswerProtocol } = await import("./json-answer.ts");
    return runSmtlLoop(ctx, options, jsonAnswerProtocol);
  },
};
