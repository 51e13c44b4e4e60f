/**
 * The reflection gate (graph strategy): before any tool runs, a critic checks each planned
 * action against the task, the outline and the nodes already executed with their outcomes (so
 * it can catch repeated work); a rejected action is revised under the critic's feedback for a
 * bounded number of rounds. As in Algorithm 2, what is still rejected after the last round runs
 * in its last revision (verdict `run-revised`). Failures never block research: when the critic
 * cannot answer, the pending actions pass (warning `gate-skipped`); when the revision fails,
 * the actions run as they were (warning `REVISION_FAILED`). Each action is cleared as soon as
 * its own verdict lets it run (`onCleared`): an action approved in the first round does not wait
 * for the revision of another (the gate stands before each action's tools, §2.2.1). An action in
 * its last revision runs whatever the critic says of it next (the rounds are spent: Algorithm 2,
 * line 8), so it is cleared as soon as that revision is made; the critic's verdict on it is still
 * asked, alongside its first calls, and recorded.
 */

import { z } from "zod";
import { exceededLimit } from "../../core/budget.ts";
import { isDossierError } from "../../core/errors.ts";
import type { PlanNode } from "../../core/plan-graph.ts";
import type { RunContext } from "../../kit/run-context.ts";

/** The critic's answer. */
export const gateSchema = z.object({
  verdicts: z.array(
    z.object({
      nodeId: z.string(),
      verdict: z.enum(["approve", "revise"]),
      feedback: z.string().describe("why, and what a better version would do"),
    }),
  ),
});

/** The revision of rejected actions. */
export const revisionSchema = z.object({
  revisions: z.array(
    z.object({
      nodeId: z.string(),
      title: z.string().min(3),
      goal: z.string().min(10).describe("the revised goal, addressing the critic's feedback"),
    }),
  ),
});

/** One gate outcome. */
export interface GateOutcome {
  /** Actions to run (approved, passed unchecked, or in their last revision). */
  approved: PlanNode[];
  /** Nodes whose title or goal changed. */
  revised: PlanNode[];
}

/** What the gate needs. */
export interface GateInput {
  actions: PlanNode[];
  /** Task and outline. */
  context: string;
  /** Executed nodes with their outcomes, one line each. */
  executed: string;
  maxRounds: number;
  /** Told each action as soon as it may run (approved, passed unchecked, or in its last revision). */
  onCleared?: (node: PlanNode) => void;
}

const describe = (n: PlanNode) =>
  `${n.id} [${n.type}] "${n.title}" — ${n.goal}${n.sections?.length ? ` (sections ${n.sections.join(", ")})` : ""}`;

const reason = (error: unknown) =>
  exceededLimit(error) ? `budget: ${exceededLimit(error)}` : isDossierError(error) ? error.code : "error";

/** Runs the gate over `input.actions`, with at most `maxRounds` revise rounds. Never throws except on cancellation. */
export async function reflectionGate(ctx: RunContext, input: GateInput): Promise<GateOutcome> {
  let pending = [...input.actions];
  const approved: PlanNode[] = [];
  const revised = new Map<string, PlanNode>();
  /** Ids already told to `onCleared` (an action in its last revision, before its last verdict). */
  const cleared = new Set<string>();
  const clear = (node: PlanNode) => {
    if (cleared.has(node.id)) return;
    cleared.add(node.id);
    input.onCleared?.(node);
  };
  const pass = (nodes: PlanNode[], round: number, verdict: "approve" | "run-revised", feedback: string) => {
    for (const node of nodes) {
      approved.push(node);
      ctx.emit({ type: "gate-verdict", nodeId: node.id, verdict, round, feedback });
      clear(node);
    }
  };
  for (let round = 1; pending.length > 0; round++) {
    let verdicts: z.infer<typeof gateSchema>["verdicts"];
    try {
      verdicts = (
        await ctx.structured({
          role: "critic",
          schema: gateSchema,
          system: [
            "You are the critic of a research team. Before any tool runs, check each planned action: does it serve the",
            "question and its outline sections, is it specific enough to act on, and does it avoid repeating work already",
            "done (see the executed nodes and their outcomes)? Approve good actions; ask for a revision otherwise, saying",
            "exactly what to change.",
          ].join("\n"),
          sharedPrefix: `${input.context}\n\n`,
          prompt: [
            input.context,
            "",
            "Executed nodes and their outcomes:",
            input.executed || "(none yet)",
            "",
            "Planned actions:",
            ...pending.map(describe),
          ].join("\n"),
          maxOutputTokens: 1200,
        })
      ).value.verdicts;
    } catch (error) {
      if (isDossierError(error, "CANCELLED")) throw error;
      ctx.emit({
        type: "warning",
        code: "gate-skipped",
        message: `critic failed (${reason(error)}); ${pending.map((n) => n.id).join(", ")} pass unchecked`,
      });
      pass(pending, round, "approve", "the critic could not answer; passed unchecked");
      break;
    }
    const verdictOf = new Map(verdicts.map((v) => [v.nodeId, v]));
    const rejected: { node: PlanNode; feedback: string }[] = [];
    for (const node of pending) {
      const v = verdictOf.get(node.id) ?? { verdict: "approve" as const, feedback: "no verdict; approved" };
      if (v.verdict === "approve") pass([node], round, "approve", v.feedback);
      else if (round > input.maxRounds)
        pass([node], round, "run-revised", `rounds spent; runs as revised: ${v.feedback}`);
      else {
        rejected.push({ node, feedback: v.feedback });
        ctx.emit({ type: "gate-verdict", nodeId: node.id, verdict: "revise", round, feedback: v.feedback });
      }
    }
    if (rejected.length === 0) break;
    const next = await revise(ctx, input.context, rejected, revised);
    if (!next) {
      pass(
        rejected.map((r) => r.node),
        round,
        "run-revised",
        "the revision failed; runs as it was",
      );
      break;
    }
    pending = next;
    // The rounds are spent: the next verdict cannot send these back, so they run from now on.
    if (round >= input.maxRounds) for (const node of next) clear(node);
  }
  return { approved, revised: [...revised.values()] };
}

/** Revises rejected actions; null (after a `REVISION_FAILED` warning) when the revision fails. */
async function revise(
  ctx: RunContext,
  context: string,
  rejected: { node: PlanNode; feedback: string }[],
  revised: Map<string, PlanNode>,
): Promise<PlanNode[] | null> {
  let byId: Map<string, z.infer<typeof revisionSchema>["revisions"][number]>;
  try {
    const { value } = await ctx.structured({
      role: "planner",
      schema: revisionSchema,
      system: "Revise the rejected research actions so they address the critic's feedback. Keep their ids.",
      prompt: `${context}\n\nRejected actions and feedback:\n${rejected.map((r) => `${describe(r.node)}\nFeedback: ${r.feedback}`).join("\n\n")}`,
      maxOutputTokens: 1200,
    });
    byId = new Map(value.revisions.map((r) => [r.nodeId, r]));
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    ctx.emit({
      type: "warning",
      code: "REVISION_FAILED",
      message: `revision failed (${reason(error)}); ${rejected.map((r) => r.node.id).join(", ")} run as they were`,
    });
    return null;
  }
  return rejected.map(({ node }) => {
    const r = byId.get(node.id);
    if (!r) return node;
    const next = { ...node, title: r.title, goal: r.goal };
    revised.set(node.id, next);
    return next;
  });
}
