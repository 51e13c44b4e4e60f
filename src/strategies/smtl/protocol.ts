/**
 * The smtl protocol as data (seed: SMTL §3, App. D.1): the plan of goals, the replies the model
 * may give at each point of the loop (plan + first calls, a parallel step or the answer, a plan
 * refinement, the answer from evidence at the cap), and the checks that make an answer
 * acceptable — every goal verified by evidence retrieved in this run.
 */

import { z } from "zod";
import type { ResearchToolName } from "../../kit/research-tools.ts";
import type { SearchAction } from "../../kit/search-actions.ts";

/** Tool calls one step may issue at most (the prompt asks for 1–5). */
export const MAX_CALLS_PER_STEP = 10;
/** Goals a plan holds at most. */
export const MAX_GOALS = 5;

/** Where a goal stands. */
export type GoalStatus = "in-progress" | "completed" | "blocked";

/** One goal of the plan. */
export interface Goal {
  /** `G1`, `G2`, … */
  id: string;
  goal: string;
  successCriterion: string;
  /** Ordered fallback paths: the second is tried when the first fails, and so on. */
  paths: string[];
  status: GoalStatus;
  /** The latest analysis of the goal's paths and what was established (with evidence ids). */
  analysis?: string;
}

/** The plan the agent works from. */
export interface SmtlPlan {
  goals: Goal[];
  /** Sub-paths the last refinement chose to run next, in parallel. */
  nextPaths: string[];
  /** The last refinement's recap. */
  recap?: string;
}

const goalDraft = z.object({
  goal: z.string().min(3).describe("a verifiable information goal"),
  successCriterion: z.string().min(3).describe("what observation would show the goal is met"),
  paths: z
    .array(z.string().min(3))
    .min(1)
    .max(5)
    .describe("1-5 ordered fallback paths: how to reach the goal, the next one tried if the previous fails"),
});

/** The model's name for each research tool. */
const CALL_NAMES: Record<ResearchToolName, string> = {
  web_search: "web_search",
  read_page: "crawl_page",
  local_search: "local_search",
  academic_search: "academic_search",
};

/** One tool call as the model writes it. */
export type SmtlCall =
  | { tool: "web_search"; query: string }
  | { tool: "crawl_page"; url: string; goal: string }
  | { tool: "local_search"; query: string }
  | { tool: "academic_search"; query: string };

const CALL_SCHEMAS = {
  web_search: z.object({ tool: z.literal("web_search"), query: z.string().min(2).describe("search query") }),
  read_page: z.object({
    tool: z.literal("crawl_page"),
    url: z.url().describe("a URL seen in the results"),
    goal: z.string().min(3).describe("the information to extract from the page"),
  }),
  local_search: z.object({
    tool: z.literal("local_search"),
    query: z.string().min(2).describe("query over the user's documents"),
  }),
  academic_search: z.object({
    tool: z.literal("academic_search"),
    query: z.string().min(2).describe("query for scholarly papers"),
  }),
} as const;

/** The call schema for the tools a run allows. */
export function callSchemaFor(tools: readonly ResearchToolName[]): z.ZodType<SmtlCall> {
  const members = tools.map((t) => CALL_SCHEMAS[t]);
  if (members.length === 1) return members[0] as unknown as z.ZodType<SmtlCall>;
  return z.discriminatedUnion(
    "tool",
    members as unknown as [z.ZodObject, z.ZodObject],
  ) as unknown as z.ZodType<SmtlCall>;
}

/** Names the model sees for the run's tools. */
export function callNames(tools: readonly ResearchToolName[]): string[] {
  return tools.map((t) => CALL_NAMES[t]);
}

/** A call as a research action. */
export function toAction(call: SmtlCall): SearchAction {
  return call.tool === "crawl_page" ? { tool: "read_page", url: call.url, goal: call.goal } : call;
}

/** How a call reads in a trace. */
export function describeCall(call: SmtlCall): string {
  return call.tool === "crawl_page"
    ? `crawl_page ${call.url} for "${call.goal}"`
    : `${call.tool} "${call.query}"`;
}

function calls(tools: readonly ResearchToolName[], min: number) {
  return z
    .array(callSchemaFor(tools))
    .min(min)
    .max(MAX_CALLS_PER_STEP)
    .describe("tool calls to run at once, each for a distinct goal or path (1-5, never more than 10)");
}

/** The first reply: the plan, then the first parallel calls. */
export function planReplySchema(tools: readonly ResearchToolName[]) {
  return z.object({
    thought: z.string().describe("how the question decomposes"),
    goals: z.array(goalDraft).min(1).max(MAX_GOALS).describe("1-5 goals"),
    calls: calls(tools, 1),
  });
}

const answerShape = z.object({
  text: z.string().min(1).max(1500).describe("the concise final answer, in the question's language"),
  citations: z.array(z.string()).min(1).describe("evidence ids supporting the answer, e.g. E4"),
  verification: z
    .array(
      z.object({
        goal: z.string().describe("goal id, e.g. G1"),
        evidence: z.array(z.string()).min(1).describe("evidence ids that verify this goal"),
      }),
    )
    .describe("for every goal of the plan, the evidence that verifies it"),
});

/** A step's reply: parallel calls, or the answer once every goal is verified. */
export function stepReplySchema(tools: readonly ResearchToolName[]) {
  return z.object({
    thought: z.string().describe("what the last observations showed and why these calls come next"),
    calls: calls(tools, 0).default([]),
    answer: answerShape.nullish().describe("only when every goal is verified; then no calls"),
  });
}

/** A step's reply. */
export type StepReply = z.infer<ReturnType<typeof stepReplySchema>>;
/** The answer of a step. */
export type AnswerReply = z.infer<typeof answerShape>;

/** A plan refinement. */
export const refineReplySchema = z.object({
  recap: z.string().describe("short recap of the plan and the progress so far"),
  goals: z
    .array(
      z.object({
        id: z.string().describe("goal id, e.g. G1"),
        status: z.enum(["completed", "in-progress", "blocked"]),
        analysis: z
          .string()
          .describe("paths tried and what they established, citing evidence ids, e.g. [E4]"),
      }),
    )
    .describe("the status of every goal"),
  newGoals: z.array(goalDraft).max(MAX_GOALS).default([]).describe("goals to add (the plan keeps at most 5)"),
  nextPaths: z
    .array(z.string())
    .min(1)
    .max(MAX_CALLS_PER_STEP)
    .describe("the sub-paths to run next, in parallel"),
});

/** The answer from the evidence gathered, when the loop ends without one. */
export const finalReplySchema = z.object({
  answer: z.string().min(1).max(1500).describe("the best concise answer the evidence supports"),
  citations: z.array(z.string()).describe("evidence ids supporting it"),
});

/** Numbers the goals of a fresh plan. */
export function planFrom(drafts: z.infer<typeof goalDraft>[], offset = 0): Goal[] {
  return drafts.map((d, i) => ({
    id: `G${offset + i + 1}`,
    goal: d.goal,
    successCriterion: d.successCriterion,
    paths: d.paths,
    status: "in-progress",
  }));
}

/** Applies a refinement to a plan (unknown goal ids are ignored; new goals up to the cap). */
export function refinePlan(plan: SmtlPlan, reply: z.infer<typeof refineReplySchema>): SmtlPlan {
  const byId = new Map(reply.goals.map((g) => [goalId(g.id), g]));
  const goals = plan.goals.map((g) => {
    const r = byId.get(g.id);
    return r ? { ...g, status: r.status, analysis: r.analysis } : g;
  });
  const room = Math.max(0, MAX_GOALS - goals.length);
  const maxId = goals.reduce((m, g) => Math.max(m, Number(g.id.slice(1)) || 0), 0);
  goals.push(...planFrom(reply.newGoals.slice(0, room), maxId));
  return { goals, nextPaths: reply.nextPaths, recap: reply.recap };
}

/** An evidence id as the model may write it (`E4`, `[E4]`, `e4`) in its canonical form. */
export function evidenceId(raw: string): string {
  return /E\d+/i.exec(raw)?.[0].toUpperCase() ?? raw.trim().toUpperCase();
}

/** A goal id as the model may write it (`G2`, `g2`, `goal 2`) in its canonical form. */
export function goalId(raw: string): string {
  const n = /\d+/.exec(raw)?.[0];
  return n ? `G${Number(n)}` : raw.trim().toUpperCase();
}

/** Evidence ids named in a text (`[E4]`, `E4, E7`). */
export function evidenceIdsIn(text: string): string[] {
  return [...new Set([...text.matchAll(/\bE(\d+)\b/gi)].map((m) => `E${m[1]}`))];
}

/**
 * Why an answer cannot be accepted yet, or null: it must cite evidence retrieved in this run,
 * and every goal of the plan must be verified by such evidence.
 */
export function answerProblem(
  answer: AnswerReply,
  plan: SmtlPlan,
  retrieved: ReadonlySet<string>,
): string | null {
  const cited = [...answer.citations.map(evidenceId), ...evidenceIdsIn(answer.text)];
  const named = [...cited, ...answer.verification.flatMap((v) => v.evidence.map(evidenceId))];
  const unknown = [...new Set(named.filter((id) => !retrieved.has(id)))];
  if (unknown.length) return `the answer cites evidence that was never retrieved: ${unknown.join(", ")}`;
  if (cited.length === 0) return "the answer cites no evidence";
  const verified = new Map<string, string[]>();
  for (const v of answer.verification) {
    if (v.evidence.length) verified.set(goalId(v.goal), v.evidence.map(evidenceId));
  }
  const open = plan.goals.filter((g) => !verified.has(g.id)).map((g) => g.id);
  if (open.length)
    return `goal(s) ${open.join(", ")} are not verified by retrieved evidence; keep working on them before answering`;
  return null;
}
