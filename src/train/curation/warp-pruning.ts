/**
 * WARP's trajectory pruning (AgentCPM-Report §2.3.1, Appendix A.4): the teacher is forced to
 * keep expanding, producing drafts D_0 … D_N; every draft is scored, the best one D_{i*} is the
 * end point, and the trajectory is cut there with the action after it relabelled TERMINATE — a
 * supervision signal for when to stop.
 *
 * On a recorded forced-expansion run: draft i was taken after trajectory step s_i; the cut
 * keeps the actions numbered ≤ s_{i*}; the deepening decision that saw D_{i*} (step s_{i*} + 1,
 * an EXPAND in forced mode) becomes TERMINATE with its own step number and state, and every
 * later action is dropped. When D_{i*} is the last draft (no decision followed it), a TERMINATE
 * numbered s_{i*} + 1 is appended with no state. The engine's own relabel marker (a
 * `terminate` action whose state says `relabelled`) is never taken as the decision. The best
 * draft is the highest score, the earliest on ties (the shorter trajectory); unscored drafts
 * (null) cannot be chosen, and with no score at all the last draft is kept.
 */

import { DossierError } from "../../core/errors.ts";
import type { RecordedDraft, RecordedRun, TrajectoryAction } from "../recorded-run.ts";

/** A pruned trajectory. */
export interface PrunedTrajectory {
  /** The index of the chosen draft. */
  cut: number;
  draft: RecordedDraft;
  scores: (number | null)[];
  /** The actions kept, ending with the TERMINATE. */
  actions: TrajectoryAction[];
  /** The action the TERMINATE replaced (`expand`), or null when it was appended. */
  relabelledFrom: string | null;
  /** Actions removed after the cut. */
  dropped: number;
}

/** The index of the highest score (earliest on ties); the last index when nothing is scored. */
export function bestDraft(scores: readonly (number | null)[]): number {
  let best = -1;
  scores.forEach((s, i) => {
    if (s !== null && Number.isFinite(s) && (best < 0 || s > scores[best]!)) best = i;
  });
  return best < 0 ? scores.length - 1 : best;
}

/** Scores every draft with `scorer` (one at a time, in order); null where it gives none. */
export async function scoreDrafts(
  drafts: readonly RecordedDraft[],
  scorer: (draft: RecordedDraft) => Promise<number | null>,
): Promise<(number | null)[]> {
  const scores: (number | null)[] = [];
  for (const draft of drafts) scores.push(await scorer(draft));
  return scores;
}

/** True for the engine's relabel marker of a forced-expansion run (a `terminate` whose state says `relabelled`). */
export function isEngineRelabel(action: TrajectoryAction): boolean {
  const state = action.state as { relabelled?: unknown } | null;
  return (
    action.action === "terminate" && typeof state === "object" && state !== null && state.relabelled === true
  );
}

/**
 * Prunes a forced-expansion trajectory at its best draft. `scores` default to the drafts'
 * recorded scores (`draft-scored`).
 */
export function pruneTrajectory(
  run: Pick<RecordedRun, "trajectory" | "drafts">,
  scores: readonly (number | null)[] = run.drafts.map((d) => d.score ?? null),
): PrunedTrajectory {
  if (run.drafts.length === 0) throw new DossierError("INPUT_INVALID", "no draft to prune at");
  if (scores.length !== run.drafts.length)
    throw new DossierError("INPUT_INVALID", `${run.drafts.length} drafts but ${scores.length} scores`);
  const cut = bestDraft(scores);
  const draft = run.drafts[cut]!;
  const actions = run.trajectory.filter((a) => !isEngineRelabel(a));
  const kept = actions.filter((a) => a.step <= draft.step);
  const decision = actions.find((a) => a.step === draft.step + 1);
  const terminate: TrajectoryAction = {
    step: draft.step + 1,
    action: "terminate",
    state: decision ? decision.state : null,
    answer: { name: "terminate" },
    ...(decision?.scope ? { scope: decision.scope } : {}),
    toolCallIds: [],
  };
  return {
    cut,
    draft,
    scores: [...scores],
    actions: [...kept, terminate],
    relabelledFrom: decision?.action ?? null,
    dropped: run.trajectory.length - kept.length - (decision ? 1 : 0),
  };
}

/**
 * The reference decision at each deepening step of a pruned trajectory (for WARP's decision
 * accuracy): `expand` where it expanded, `terminate` at its end.
 */
export function decisionLabels(
  pruned: Pick<PrunedTrajectory, "actions">,
): Map<number, "expand" | "terminate"> {
  const labels = new Map<number, "expand" | "terminate">();
  for (const a of pruned.actions)
    if (a.action === "expand" || a.action === "terminate") labels.set(a.step, a.action);
  return labels;
}
