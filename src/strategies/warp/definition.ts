/**
 * The `warp` strategy (AgentCPM-Report, WARP): a sparse outline, evidence-based drafting of
 * each section in document order, then reasoning-driven deepening that expands one section at
 * a time or terminates; optional forced expansion with trajectory pruning. Answers are
 * structured output (`protocol: json`) or the seed checkpoints' tag protocol (`native`).
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { Range, StrategyDefinition } from "../types.ts";
import type { NativeIntros } from "./native/prompts.ts";
import { WARP_PROTOCOLS, warpRoleSampling } from "./sampling.ts";
import { DEFAULT_MAX_STEPS, NATIVE_EXTEND_BUDGET } from "./steps.ts";

/** Options of the warp strategy. */
export const warpOptionsSchema = z
  .object({
    maxExpansions: z
      .number()
      .int()
      .min(0)
      .max(12)
      .default(12)
      .describe("expansions at most in the deepening phase (the policy may terminate sooner)"),
    forceExpand: z
      .number()
      .int()
      .min(1)
      .max(12)
      .optional()
      .describe("forced-expansion mode: expand exactly N times, score every draft, keep the best"),
    readPages: z
      .number()
      .int()
      .min(0)
      .max(3)
      .default(1)
      .describe("web pages read per section for verbatim excerpts (0: search snippets only)"),
    maxSteps: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(DEFAULT_MAX_STEPS)
      .describe("model calls of the policy at most, re-asks included (the seed's step cap)"),
    protocol: z
      .enum(WARP_PROTOCOLS)
      .default("json")
      .describe(
        "answer protocol: json (structured output, any model) or native (AgentCPM-Report's tags and \\cite keys, for its checkpoints)",
      ),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .describe("sampling temperature of the policy's calls (default: the released code's 0.7)"),
    topP: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe("nucleus sampling top-p of the policy's calls (default: the released code's 0.8)"),
    systemPrompt: z
      .object({
        search: z.string().min(1).optional().describe("file holding the searcher prompt's opening prose"),
        initPlan: z.string().min(1).optional().describe("file holding the init-plan prompt's opening prose"),
        write: z.string().min(1).optional().describe("file holding the writer prompt's opening prose"),
        extendPlan: z
          .string()
          .min(1)
          .optional()
          .describe("file holding the extend-plan prompt's opening prose"),
      })
      .strict()
      .optional()
      .describe(
        "native protocol: a file per prompt whose text replaces Dossier's opening prose of that prompt (a checkpoint's own wording)",
      ),
    scorer: z
      .enum(["rubric", "grounding"])
      .default("rubric")
      .describe(
        "scorer of the drafts in forced-expansion mode: rubric (model judge) or grounding (no model)",
      ),
  })
  .strict();

/** Level-1 sections, new subsections per expansion, keywords per search. */
const SECTIONS = [3, 12] as const;
const CHILDREN = [2, 7] as const;
const KEYWORDS = [1, 5] as const;
/** Rubric items judged per scored draft. */
const RUBRIC_ITEMS = [7, 20] as const;

/** The warp strategy. The implementation loads when a run starts. */
export const warpStrategy: StrategyDefinition<z.infer<typeof warpOptionsSchema>> = {
  name: "warp",
  description:
    "Writing as reasoning: a sparse outline, each section searched for and written in document order, then the draft deepened one section at a time until the policy terminates (works fully on local documents).",
  optionsSchema: warpOptionsSchema,
  roles: ["planner", "searcher", "writer", "reader", "rubricer", "judge"],
  capabilities: { needsModel: true, web: true, local: true },
  // Its initial outline is its plan (review.ts).
  reviewsPlan: () => true,
  sampling: (options) => warpRoleSampling(options),
  estimate({ options, webReading }) {
    const forced = options.forceExpand;
    // The native protocol's extend budget also bounds the expansions.
    const most =
      options.protocol === "native"
        ? Math.min(options.maxExpansions, NATIVE_EXTEND_BUDGET)
        : options.maxExpansions;
    const expansions = forced === undefined ? [0, most] : [forced, forced];
    // Forced: exactly N decisions. Otherwise one (an immediate TERMINATE) up to the cap.
    const decisions: Range = forced === undefined ? [Math.min(1, most), expansions[1]!] : [forced, forced];
    // The step cap bounds the policy's calls (a SEARCH and a WRITE per section, 2 to start).
    const withinSteps = (n: number) =>
      Math.max(0, Math.min(n, Math.floor((options.maxSteps - 2 - decisions[1]) / 2)));
    const sections = [
      withinSteps(SECTIONS[0] + expansions[0]! * CHILDREN[0]),
      withinSteps(SECTIONS[1] + expansions[1]! * CHILDREN[1]),
    ] as const;
    const drafts = [expansions[0]! + 1, expansions[1]! + 1] as const;
    const scoring = forced !== undefined && options.scorer === "rubric";
    const reads = webReading ? options.readPages : 0;
    return {
      llm: [
        { role: "searcher", count: [1 + sections[0], 1 + sections[1]], input: 4000, output: 150 },
        { role: "planner", count: [1, 1], input: 5000, output: 1200 },
        { role: "writer", count: [sections[0], sections[1]], input: 9000, output: 1200 },
        ...(reads > 0
          ? [
              {
                role: "reader" as const,
                count: [sections[0] * reads, sections[1] * reads] as Range,
                input: 12000,
                output: 800,
              },
            ]
          : []),
        { role: "planner", count: [decisions[0], decisions[1]], input: 14000, output: 600 },
        ...(scoring
          ? [
              { role: "rubricer" as const, count: [1, 1] as [number, number], input: 1500, output: 2000 },
              {
                role: "judge" as const,
                count: [drafts[0] * RUBRIC_ITEMS[0], drafts[1] * RUBRIC_ITEMS[1]] as [number, number],
                input: 12000,
                output: 150,
              },
            ]
          : []),
      ],
      // One search per keyword per search tool (web, academic, local), a page read (or up to two
      // replacements) per section.
      tools: [
        (1 + sections[0]) * KEYWORDS[0] + sections[0] * reads,
        (1 + sections[1]) * KEYWORDS[1] * 3 + sections[1] * (reads > 0 ? reads + 2 : 0),
      ],
    };
  },
  async run(ctx, input) {
    const intros = await readIntros(input.options);
    const { runWarp } = await import("./run.ts");
    return runWarp(ctx, {
      tools: input.tools,
      language: input.language,
      maxExpansions: input.options.maxExpansions,
      scorer: input.options.scorer,
      readPages: input.options.readPages,
      maxSteps: input.options.maxSteps,
      protocol: input.options.protocol,
      sampling: warpRoleSampling(input.options),
      ...(intros ? { intros } : {}),
      ...(input.options.forceExpand === undefined ? {} : { forceExpand: input.options.forceExpand }),
    });
  },
};

/**
 * The `systemPrompt` files' texts, read before any model call (INPUT_INVALID when one is missing
 * or empty, or when the protocol is not native); undefined when none is given.
 */
async function readIntros(options: WarpOptionsInput): Promise<NativeIntros | undefined> {
  const files = options.systemPrompt;
  if (!files) return undefined;
  if (options.protocol !== "native")
    throw new DossierError(
      "INPUT_INVALID",
      "warp: systemPrompt applies to the native protocol (--option protocol=native)",
    );
  const { readSystemPromptFile } = await import("../../kit/system-prompt-file.ts");
  const intros: NativeIntros = {};
  for (const [prompt, path] of Object.entries(files) as [keyof NativeIntros, string | undefined][])
    if (path !== undefined) intros[prompt] = await readSystemPromptFile(path, `warp systemPrompt.${prompt}`);
  return intros;
}

type WarpOptionsInput = z.infer<typeof warpOptionsSchema>;
