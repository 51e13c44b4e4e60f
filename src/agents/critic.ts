/**
 * The reflection gate (graph strategy): before any tool runs, a critic checks each planned
 * action against the task, the outline and what is already known; a rejected action is revised
 * under the critic's feedback for a bounded number of rounds, then dropped with the reason.
 */

import { z } from "zod";
import type { PlanNode } from "../core/plan-graph.ts";
import type { RunContext } from "./run-context.ts";

/** The critic's answer. */
export const gateSchema = z.object({
  verdicts: z.array(
    z.object({
      nodeId: z.string(),
      verdict: z
        .enum(["approve", "revise"])
        .describe("approve to run it as is; revise when it is redundant, vague or off target"),
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
  approved: PlanNode[];
  dropped: { node: PlanNode; reason: string }[];
  /** Nodes whose title or goal changed. */
  revised: PlanNode[];
}

const describe = (n: PlanNode) =>
  `${n.id} [${n.type}] "${n.title}" — ${n.goal}${n.sections?.length ? ` (sections ${n.sections.join(", ")})` : ""}`;

/** Runs the gate over `actions`, with at most `maxRounds` revise rounds. */
export async function reflectionGate(
  ctx: RunContext,
  input: { actions: PlanNode[]; context: string; maxRounds: number },
): Promise<GateOutcome> {
  let pending = [...input.actions];
  const approved: PlanNode[] = [];
  const dropped: GateOutcome["dropped"] = [];
  const revised = new Map<string, PlanNode>();
  for (let round = 1; pending.length > 0; round++) {
    const { value } = await ctx.structured({
      role: "critic",
      schema: gateSchema,
      system: [
        "You are the critic of a research team. Before any tool runs, check each planned action: does it serve the question",
        "and its outline sections, is it specific enough to act on, and does it avoid repeating work already done?",
        "Approve good actions; ask for a revision otherwise, saying exactly what to change.",
      ].join("\n"),
      prompt: `${input.context}\n\nPlanned actions:\n${pending.map(describe).join("\n")}`,
      maxOutputTokens: 1200,
    });
    const verdictOf = new Map(value.verdicts.map((v) => [v.nodeId, v]));
    const rejected: { node: PlanNode; feedback: string }[] = [];
    for (const node of pending) {
      const v = verdictOf.get(node.id) ?? {
        verdict: "approve" as const,
        feedback: "no verdict given; approved by default",
      };
      if (v.verdict === "approve") {
        approved.push(node);
        ctx.emit({ type: "gate-verdict", nodeId: node.id, verdict: "approve", round, feedback: v.feedback });
      } else if (round > input.maxRounds) {
        dropped.push({ node, reason: v.feedback });
        ctx.emit({ type: "gate-verdict", nodeId: node.id, verdict: "drop", round, feedback: v.feedback });
      } else {
        rejected.push({ node, feedback: v.feedback });
        ctx.emit({ type: "gate-verdict", nodeId: node.id, verdict: "revise", round, feedback: v.feedback });
      }
    }
    if (rejected.length === 0) break;
    const { value: rev } = await ctx.structured({
      role: "planner",
      schema: revisionSchema,
      system: "Revise the rejected research actions so they address the critic's feedback. Keep their ids.",
      prompt: `${input.context}\n\nRejected actions and feedback:\n${rejected.map((r) => `${describe(r.node)}\nFeedback: ${r.feedback}`).join("\n\n")}`,
      maxOutputTokens: 1200,
    });
    const byId = new Map(rev.revisions.map((r) => [r.nodeId, r]));
    pending = rejected.map(({ node }) => {
      const r = byId.get(node.id);
      if (!r) return node;
      const next = { ...node, title: r.title, goal: r.goal };
      revised.set(node.id, next);
      return next;
    });
  }
  return { approved, dropped, revised: [...revised.values()] };
}
