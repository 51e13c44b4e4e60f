/**
 * `warp`: the rewards of a WARP rollout (AgentCPM-Report §2.3.2, Table 1, Appendix A.6): the
 * atomic reward of each action of its trajectory (warp-atomic.ts) and the pipeline reward of
 * its final report (warp-pipeline.ts), which is the run's scalar reward for end-to-end RL.
 *
 * The actions come from the run's `trajectory-step` events: INITIALIZE's sections, EXPAND's
 * subsections, WRITE's paragraph with the evidence ids its state was given (and their
 * passages), SEARCH with the documents (source locators) of the evidence its tool calls
 * retrieved. References (golden documents and citations, the right decision) are per action
 * and injected, e.g. from the teacher's pruned trajectory (see curation/warp-pruning.ts,
 * `decisionLabels`). A run without a report scores a pipeline reward of 0 without a judge call.
 */

import { z } from "zod";
import { sourceLocator } from "../../core/source.ts";
import type { RecordedRun, TrajectoryAction } from "../recorded-run.ts";
import {
  type WarpActionName,
  type WarpActionReward,
  type WarpActionSample,
  type WarpBounds,
  type WarpJudges,
  type WarpReference,
  warpActionReward,
} from "./warp-atomic.ts";
import { type DimensionValues, type PipelineJudge, pipelineScore, pipelineWeights } from "./warp-pipeline.ts";

const sections = z.array(z.object({ title: z.string(), plan: z.string() }));
const initializeAnswer = z.object({ sections });
const expandAnswer = z.object({ subsections: sections });
const writeAnswer = z.object({ content: z.string() });
const writeState = z.object({ passages: z.array(z.string()) });
const ACTIONS = new Set<string>(["initialize", "expand", "search", "write", "terminate"]);

/** Gives the reference of an action, or null. */
export type WarpReferenceOf = (action: TrajectoryAction, index: number) => WarpReference | null;

/** The action samples of a run's trajectory (actions Dossier does not know are skipped). */
export function warpActionSamples(
  run: RecordedRun,
  reference?: WarpReferenceOf,
): (WarpActionSample & { step: number })[] {
  const evidence = new Map(run.evidence.map((e) => [e.id, e]));
  const sources = new Map(run.sources.map((s) => [s.id, s]));
  const out: (WarpActionSample & { step: number })[] = [];
  run.trajectory.forEach((a, index) => {
    if (!ACTIONS.has(a.action)) return;
    const sample: WarpActionSample & { step: number } = {
      step: a.step,
      question: run.row.prompt,
      action: a.action as WarpActionName,
      reference: reference?.(a, index) ?? null,
    };
    if (a.action === "initialize") {
      const parsed = initializeAnswer.safeParse(a.answer);
      if (parsed.success) sample.plan = parsed.data.sections;
    } else if (a.action === "expand") {
      const parsed = expandAnswer.safeParse(a.answer);
      if (parsed.success) sample.plan = parsed.data.subsections;
    } else if (a.action === "write") {
      const parsed = writeAnswer.safeParse(a.answer);
      if (parsed.success) sample.content = parsed.data.content;
      const state = writeState.safeParse(a.state);
      if (state.success) {
        sample.given = state.data.passages;
        sample.passages = state.data.passages.map((id) => evidence.get(id)?.text ?? "").filter(Boolean);
      }
    } else if (a.action === "search") {
      const calls = new Set(a.toolCallIds);
      const docs = run.evidence
        .filter((e) => calls.has(e.retrievedBy.callId))
        .map((e) => sources.get(e.sourceId))
        .filter((s) => s !== undefined)
        .map((s) => sourceLocator(s));
      sample.retrieved = [...new Set(docs)];
    }
    out.push(sample);
  });
  return out;
}

/** Dependencies of {@link warpReward}. */
export interface WarpDeps {
  pipeline: PipelineJudge;
  judges?: WarpJudges;
  reference?: WarpReferenceOf;
}

/** The rewards of one rollout. */
export interface WarpReward {
  /** The pipeline reward (A.6.2). */
  reward: number;
  components: {
    pipeline: number;
    /** The mean of the actions' atomic rewards (null when none could be computed). */
    atomicMean: number | null;
  };
  dimensions: DimensionValues | null;
  weights: DimensionValues;
  steps: (WarpActionReward & { step: number })[];
}

/** The `warp` rewards of a run (see the module comment). */
export async function warpReward(
  run: RecordedRun,
  deps: WarpDeps,
  options: { bounds?: WarpBounds } = {},
): Promise<WarpReward> {
  const steps: (WarpActionReward & { step: number })[] = [];
  for (const sample of warpActionSamples(run, deps.reference)) {
    steps.push({ step: sample.step, ...(await warpActionReward(sample, deps.judges, options.bounds)) });
  }
  const weights = pipelineWeights(run.row);
  const dimensions =
    run.report === null
      ? null
      : await deps.pipeline({ question: run.row.prompt, report: run.report, row: run.row });
  const pipeline = dimensions === null ? 0 : pipelineScore(dimensions, weights);
  const atomic = steps.map((s) => s.reward).filter((r): r is number => r !== null);
  return {
    reward: pipeline,
    components: {
      pipeline,
      atomicMean: atomic.length === 0 ? null : atomic.reduce((a, b) => a + b, 0) / atomic.length,
    },
    dimensions,
    weights,
    steps,
  };
}
