/**
 * `warp-atomic`: the reward of an atomic-skill sample (`train rollouts --atomic`; AgentCPM-Report
 * Table 1, Appendix A.6.1) — the atomic reward of its one action (warp-atomic.ts) against the
 * teacher's reference its state carries:
 *
 * - INITIALIZE: plan basic properties (and the quality and faithfulness judges, when given);
 * - SEARCH: recall of the teacher's retrieved documents by the documents its keywords found;
 * - WRITE: paragraph basic properties, citation precision against the teacher's citations (0 on
 *   an evidence id the state did not give);
 * - deepening decision: accuracy against the reference (EXPAND before the pruned teacher's cut,
 *   TERMINATE at it), and for an EXPAND its plan's basic properties.
 *
 * A reply that is no valid action (its call's format errors) scores 0 — the seed's own step format
 * score is negative for it, and a sample must not rank above a valid one. The reward is the mean of
 * the computable components; `formatValid` says which case it was.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import type { RecordedRun } from "../recorded-run.ts";
import {
  type WarpActionName,
  type WarpActionReward,
  type WarpActionSample,
  type WarpJudges,
  warpActionReward,
} from "./warp-atomic.ts";

const sections = z.array(z.object({ title: z.string(), plan: z.string() }));
const atomicState = z.object({
  passages: z.array(z.string()).optional(),
  atomic: z.object({
    action: z.string(),
    teacherRunId: z.string(),
    teacherStep: z.number(),
    reference: z.object({
      docs: z.array(z.string()).optional(),
      citations: z.array(z.string()).optional(),
      decision: z.enum(["expand", "terminate"]).optional(),
      text: z.string().optional(),
    }),
    retrieved: z.array(z.string()).optional(),
  }),
});
const answerShape = z.object({
  sections: sections.optional(),
  subsections: sections.optional(),
  content: z.string().optional(),
});

/** True for a run that is an atomic-skill sample (its one action's state names its teacher). */
export function isAtomicSample(run: Pick<RecordedRun, "trajectory">): boolean {
  return run.trajectory.length === 1 && atomicState.safeParse(run.trajectory[0]!.state).success;
}

/** The reward of an atomic sample. */
export interface WarpAtomicSampleReward {
  reward: number;
  components: WarpActionReward["components"] & { formatValid: 0 | 1 };
  action: string;
  ability: string | null;
  /** The teacher state it was sampled from. */
  teacher: { runId: string; step: number };
}

/** The `warp-atomic` reward of an atomic sample (see the module comment). */
export async function warpAtomicSampleReward(
  run: RecordedRun,
  judges: WarpJudges = {},
): Promise<WarpAtomicSampleReward> {
  if (!isAtomicSample(run) || run.calls.length !== 1)
    throw new DossierError(
      "INPUT_INVALID",
      `run ${run.runId} is not an atomic sample (train rollouts --atomic)`,
    );
  const action = run.trajectory[0]!;
  const { atomic, passages } = atomicState.parse(action.state);
  const teacher = { runId: atomic.teacherRunId, step: atomic.teacherStep };
  const empty = {
    basic: null,
    quality: null,
    faithfulness: null,
    citationPrecision: null,
    recall: null,
    accuracy: null,
  };
  if (run.calls[0]!.formatErrors.length > 0 || action.answer === null)
    return {
      reward: 0,
      components: { ...empty, formatValid: 0 },
      action: action.action,
      ability: null,
      teacher,
    };
  const answer = answerShape.parse(action.answer ?? {});
  const evidence = new Map(run.evidence.map((e) => [e.id, e.text]));
  const sample: WarpActionSample = {
    question: run.row.prompt,
    action: action.action as WarpActionName,
    reference: atomic.reference,
    ...(answer.sections ? { plan: answer.sections } : {}),
    ...(answer.subsections ? { plan: answer.subsections } : {}),
    ...(answer.content === undefined ? {} : { content: answer.content }),
    ...(passages
      ? { given: passages, passages: passages.map((id) => evidence.get(id) ?? "").filter(Boolean) }
      : {}),
    ...(atomic.retrieved ? { retrieved: atomic.retrieved } : {}),
  };
  const scored = await warpActionReward(sample, judges);
  return {
    reward: scored.reward ?? 0,
    components: { ...scored.components, formatValid: 1 },
    action: scored.action,
    ability: scored.ability,
    teacher,
  };
}
