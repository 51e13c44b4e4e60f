/**
 * The plan refinement of smtl's deep-research mode in the JSON protocol (seed: SMTL §3 "Dynamic
 * Plan Refinement" and §6.1): every `refineEvery` tool steps, and once more before each context
 * reset, the agent restates where the research stands and gives the subtasks still to do —
 * answered subtasks are kept as they are, the pending ones are replaced by the refined list
 * (dropped, rewritten or new). A refused refinement keeps the subtasks as they were.
 */

import { z } from "zod";
import { decoded, type JsonCodec } from "../../kit/protocol/codec.ts";
import { jsonRequest } from "./json-protocol.ts";
import { renderSubtasks, researchSystem } from "./research-prompts.ts";
import { MAX_SUBTASKS, type Subtask } from "./research-protocol.ts";
import type { SmtlResearchFigures, SmtlState } from "./state.ts";
import { sampleRefinement } from "./turn.ts";

/** The refinement reply: where the research stands, and the subtasks still to do. */
export const subtaskRefineSchema = z.object({
  status: z
    .string()
    .min(1)
    .describe("where the research stands: what each subtask established, what is missing"),
  pending: z
    .array(
      z.object({
        title: z.string().min(3).describe("short name of the subtask"),
        goal: z.string().min(5).describe("what it must establish"),
      }),
    )
    .min(1)
    .max(MAX_SUBTASKS)
    .describe("the subtasks still to do, in the order to take them: keep, rewrite, drop or add"),
});

type RefineReply = z.infer<typeof subtaskRefineSchema>;

/** The request for a refinement, sent after the last message. */
export const RESEARCH_REFINE_REQUEST =
  "Refine the subtasks now from everything above: state what each answered or current subtask established (with evidence ids, since older turns may be dropped), then list the subtasks still to do.";

const refineCodec: JsonCodec<SmtlState, RefineReply, RefineReply> = {
  kind: "json",
  name: "smtl-json-research",
  request: (s) =>
    jsonRequest(
      s,
      researchSystem({
        tools: s.tools,
        currentDate: s.ctx.currentDate,
        language: s.options.language,
        maxSteps: s.maxSteps,
        mode: "refine",
      }),
      subtaskRefineSchema,
      RESEARCH_REFINE_REQUEST,
    ),
  decode: (value) => decoded(value),
};

/** The subtasks after a refinement: the answered ones, then the pending list of the reply. */
export function refineSubtasks(subtasks: readonly Subtask[], current: number, reply: RefineReply): Subtask[] {
  const done = subtasks.slice(0, current);
  const room = Math.max(1, MAX_SUBTASKS - done.length);
  const pending = reply.pending.slice(0, room).map((t, i) => ({
    id: `S${done.length + i + 1}`,
    title: t.title,
    goal: t.goal,
  }));
  return [...done, ...pending];
}

/** A refinement (forced before a reset): the subtasks refined, or kept when it is refused. */
export async function refineResearch(s: SmtlState, forced: boolean): Promise<void> {
  if (!s.subtasks || s.current >= s.subtasks.length) return;
  const r = await sampleRefinement(s, refineCodec, forced, "refinement");
  if (!r) return;
  const figures = s.figures as SmtlResearchFigures;
  s.record("refine", { step: s.figures.steps, forced, observations: s.steps.lastObserved }, r.action);
  s.subtasks = refineSubtasks(s.subtasks, s.current, r.action);
  figures.subtasks = s.subtasks.length;
  figures.refinements++;
  s.ctx.emit({ type: "plan-refine", step: s.figures.steps, forced, plan: { subtasks: s.subtasks } });
  s.talk.recordRefinement(RESEARCH_REFINE_REQUEST, r.raw, renderSubtasks(s.subtasks, s.current));
}
