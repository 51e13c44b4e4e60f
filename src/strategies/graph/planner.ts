/**
 * The graph planner (graph strategy). Once, right after the outline is fixed, it drafts the
 * first real plan (INITPLAN): search subtasks that cover every level-1 section, with legal
 * dependencies. Then, every cycle, it sees the task, the fixed outline, the whole current DAG
 * with each node's results, and both rubrics; assesses each executed node, decides whether the
 * plan must change (and only for the reasons the design allows), emits the full DAG and the
 * frontier actions to run now, or asks for the report to be written.
 */

import { z } from "zod";
import { type Outline, outlineToText } from "../../core/outline.ts";
import { type PlanGraph, type PlanNode, planNodeProposalSchema } from "../../core/plan-graph.ts";
import { languageName } from "../../kit/language.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { persistentRubricSchema } from "./rubricer.ts";

/** The reasons a plan may change. */
export const REPLAN_REASONS = [
  "failed-or-off-topic",
  "uncovered-sections",
  "insufficient-depth",
  "conflict",
  "new-gap",
  "changed-constraints",
] as const;

/** The planner's answer. */
export const plannerDecisionSchema = z.object({
  assessments: z
    .array(
      z.object({
        nodeId: z.string(),
        verdict: z
          .enum(["HIGH", "ADEQUATE", "INSUFFICIENT"])
          .describe("how well the node's result serves its goal"),
        reason: z.string().min(3),
      }),
    )
    .default([]),
  decision: z.object({
    changePlan: z.boolean(),
    reasons: z.array(z.enum(REPLAN_REASONS)).default([]),
    explanation: z.string(),
  }),
  plan: z.array(planNodeProposalSchema).min(1).describe("every existing node, plus new ones"),
  actions: z
    .array(z.string())
    .max(8)
    .default([])
    .describe(
      "ready nodes to run now, smallest depth and highest gain first; an empty list ends the research",
    ),
  synthesize: z.boolean().describe("true when the evidence suffices: the report is written now"),
});
/** The planner's answer. */
export type PlannerDecision = z.infer<typeof plannerDecisionSchema>;

/** Characters of a node's result shown when it is assessed, and after (its assessment is made). */
export const RESULT_CHARS = { assess: 400, assessed: 160 } as const;

/** One line per node for the planner's view of the DAG, its result without evidence ids cut to `resultChars`. */
export function describeNode(node: PlanNode, resultChars: number = RESULT_CHARS.assess): string {
  const result = node.result as { summary?: string; evidenceIds?: string[] } | undefined;
  const parts = [
    `${node.id} [${node.type}, depth ${node.depth}, ${node.status}] "${node.title}" — ${node.goal}`,
    node.deps.length ? `deps: ${node.deps.join(", ")}` : "",
    node.sections?.length ? `sections: ${node.sections.join(", ")}` : "",
    result?.evidenceIds ? `evidence: ${result.evidenceIds.length}` : "",
    result?.summary ? `result: ${cut(withoutCitations(result.summary), resultChars)}` : "",
  ];
  return parts.filter(Boolean).join("; ");
}

/**
 * A result without its evidence ids (`[E3]`, `[E3, E7]`): the planner and the critic judge what
 * a node found and cite nothing; the writers read the ids in the findings themselves.
 */
export const withoutCitations = (text: string): string =>
  text
    .replace(/\s*\[E\d+(?:\s*,\s*E\d+)*\]/g, "")
    .replace(/\s+/g, " ")
    .trim();

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);

/** The planner's instructions. */
export function graphPlannerSystem(
  ctx: Pick<RunContext, "currentDate">,
  language: string,
  maxDepth: number,
): string {
  return [
    "You maintain the research plan of a team as a directed acyclic graph of subtasks, serving a fixed report outline.",
    "Each cycle: (1) assess every executed node not assessed before; (2) change the plan only if a node failed or went",
    "off topic, an outline section is uncovered, evidence is too shallow for a section, sources conflict and need",
    "verification, a high-value new gap appeared, or the constraints changed (else keep it stable); (3) emit the complete",
    "plan; (4) choose the ready nodes to run now — choosing none ends the research, as asking for the report does.",
    "Rules: llm nodes deduplicate, merge or cross-check collected evidence; exactly one report node, last, depending",
    "on every other live node; no cycles; a node's dependencies have strictly smaller depth; depth at most",
    `${maxDepth}; never change an executed node; every new node names the outline sections it serves; merge`,
    "near-duplicate subtasks.",
    `Resolve relative time against today's date, ${ctx.currentDate}. Write titles and goals in ${languageName(language)}.`,
  ].join("\n");
}

/** Options of {@link planNextCycle}. */
export interface PlanCycleInput {
  spec: string;
  outline: Outline;
  graph: PlanGraph;
  persistentRubric: string;
  ephemeralRubric: string;
  language: string;
  maxDepth: number;
  iteration: number;
  /** Violations of the previous answer, when re-asking. */
  violations?: string[];
  /** Node ids already assessed. */
  assessed: ReadonlySet<string>;
}

/** Asks the planner for the next cycle. */
export async function planNextCycle(ctx: RunContext, input: PlanCycleInput): Promise<PlannerDecision> {
  const toAssess = input.graph.nodes.filter(
    (n) => (n.status === "done" || n.status === "failed") && !input.assessed.has(n.id),
  );
  // What every turn repeats leads (a prompt cache can serve it): task, outline, persistent rubric.
  const shared = `${[
    `Research question: ${ctx.query}`,
    input.spec,
    "",
    "Fixed outline:",
    outlineToText(input.outline),
    "",
    "Persistent rubric:",
    input.persistentRubric,
  ].join("\n")}\n\n`;
  const prompt = [
    `${shared}Current plan (iteration ${input.iteration}):`,
    // Results in full only for the nodes to assess now; the others were assessed before.
    ...input.graph.nodes.map((n) =>
      describeNode(n, input.assessed.has(n.id) ? RESULT_CHARS.assessed : RESULT_CHARS.assess),
    ),
    "",
    `Executed nodes to assess now: ${toAssess.map((n) => n.id).join(", ") || "none"}`,
    "",
    "Current gaps (ephemeral rubric):",
    input.ephemeralRubric,
    ...(input.violations?.length
      ? [
          "",
          "Your previous plan was not a legal DAG. Fix these problems:",
          ...input.violations.map((v) => `- ${v}`),
        ]
      : []),
  ].join("\n");
  const { value } = await ctx.structured({
    role: "planner",
    schema: plannerDecisionSchema,
    system: graphPlannerSystem(ctx, input.language, input.maxDepth),
    sharedPrefix: shared,
    prompt,
    maxOutputTokens: 4000,
  });
  return value;
}

/** The first plan: new subtasks only (the survey, outline and report nodes exist already). */
export const initialPlanSchema = z.object({
  rubric: persistentRubricSchema.shape.items.describe(
    "the quality standard for the whole session, written first: 4–6 criteria chosen for this topic",
  ),
  rationale: z.string().describe("how the subtasks cover the outline, in one or two sentences"),
  nodes: z
    .array(planNodeProposalSchema)
    .max(16)
    .default([])
    .describe("new search and llm subtasks with new ids; every level-1 section served by a search node"),
  actions: z
    .array(z.string())
    .max(8)
    .default([])
    .describe("ids of the new subtasks to run first (no dependencies), judged against the standard"),
});
/** The first plan, with the persistent rubric it was drafted against and the first actions. */
export type InitialPlan = z.infer<typeof initialPlanSchema>;

/** Options of {@link proposeInitialPlan}. */
export interface InitialPlanInput {
  spec: string;
  outline: Outline;
  graph: PlanGraph;
  language: string;
  maxDepth: number;
}

/**
 * Asks the planner, once the outline is fixed, for INITGUIDANCE and INITPLAN — both read only
 * the topic and the outline (Algorithm 1, line 3) — and for the first actions, chosen from the
 * new plan's ready subtasks against the rubric it has just written (eq. 8): one call, the
 * rubric first so that the plan and the choice are conditioned on it.
 */
export async function proposeInitialPlan(ctx: RunContext, input: InitialPlanInput): Promise<InitialPlan> {
  const language = languageName(input.language);
  const { value } = await ctx.structured({
    role: "planner",
    schema: initialPlanSchema,
    system: [
      "You draft the first research plan of a team, now that the report outline is fixed, in three parts.",
      "1. rubric: the quality standard for the whole session, 4–6 criteria chosen for this topic from dimensions such",
      "as coverage of every outline section, consistency across sources, balanced depth, support for each central claim",
      "(forecasts with scenarios or stated uncertainty) and explicit requirements; each guidance a concrete check, never",
      "a number.",
      "2. nodes: the subtasks that will collect the evidence each section needs: search nodes (retrieve evidence) and,",
      "where sources must be merged or cross-checked, llm nodes (no retrieval) that depend on the searches they check.",
      "Every level-1 section needs at least one search node naming it in its sections; merge sections that one search",
      "can serve; keep goals specific (entities, metrics, periods). Use new ids; dependencies only on listed or earlier",
      `new nodes, with a strictly smaller depth; depth at most ${input.maxDepth - 1}. No outline or report nodes.`,
      "3. actions: the new subtasks without dependencies to run first, judged against your standard.",
      `Resolve relative time against today's date, ${ctx.currentDate}. Write in ${language}.`,
    ].join("\n"),
    prompt: [
      `Research question: ${ctx.query}`,
      input.spec,
      "",
      "Fixed outline:",
      outlineToText(input.outline),
      "",
      "Plan so far:",
      ...input.graph.nodes.map((n) => describeNode(n, RESULT_CHARS.assessed)),
    ].join("\n"),
    maxOutputTokens: 4000,
  });
  return value;
}
