/**
 * WARP's trajectory pruning applied to a recorded forced-expansion run's model calls (seed
 * §2.3.1, Appendix A.4), so the training exports teach the pruned trajectory: the teacher was
 * forced to expand N times; the trajectory ends at its best-scored draft D_{i*}, the deepening
 * decision that saw D_{i*} is relabelled TERMINATE, and nothing after it is kept.
 *
 * On the calls (warp-pruning.ts does the same on the actions):
 *
 * - kept: every call recorded up to the snapshot of D_{i*} (`lastCallId` of the draft) — the
 *   actions that built it, with the engine's own calls among them (page readers);
 * - dropped: every later call — the forced EXPAND that saw D_{i*} (re-asks included), every
 *   action after it, and the draft scoring at the end (it judged drafts the pruned trajectory no
 *   longer holds);
 * - added: the relabelled TERMINATE, one call answering the decision's *unforced* request (the
 *   request the policy would have had at D_{i*} without the forcing, which the run recorded —
 *   unforced-decision.ts) with TERMINATE in the protocol's form. It takes the forced decision
 *   call's model, role, scope, step and sampling, and the id `<that call>:terminate`; when D_{i*}
 *   is the last draft (no decision followed it) the last forced decision call stands in for them.
 *
 * With `reprompt` (the SFT export), each forced EXPAND kept before the cut is also taught on its
 * unforced request: the same completion, the prompt that offers TERMINATE. Otherwise a student
 * would see EXPAND only under "You must expand one section now" and TERMINATE only without it,
 * and could learn the decision from that line instead of from the draft. The `rl` export keeps
 * the prompts the model really saw (a policy-gradient update needs the real context); its
 * relabelled TERMINATE is marked as such.
 *
 * A run recorded before runs kept what this needs (each draft's last call, each decision's
 * unforced request) cannot be pruned: INPUT_INVALID, naming what is missing.
 */

import { DossierError } from "../../core/errors.ts";
import type { RecordedCall } from "../recorded-call.ts";
import type { RecordedRun, TrajectoryAction } from "../recorded-run.ts";
import { unforcedCall, unforcedOf } from "./unforced-decision.ts";
import { isEngineRelabel, type PrunedTrajectory, pruneTrajectory } from "./warp-pruning.ts";

/** A forced-expansion run pruned at its best draft. */
export interface PrunedRun {
  /** The run with its calls and trajectory cut at the best draft, ending with the TERMINATE call. */
  run: RecordedRun;
  pruned: PrunedTrajectory;
  /** The relabelled TERMINATE (the last of `run.calls`). */
  terminate: RecordedCall;
  /** Ids of the calls left out after the cut. */
  dropped: string[];
  /** Ids of the forced EXPAND calls taught on their unforced request (`reprompt`). */
  reprompted: string[];
}

/** True for a recorded forced-expansion warp run (drafts, and the engine's relabel marker in its trajectory). */
export function isForcedExpansionRun(run: Pick<RecordedRun, "strategy" | "trajectory" | "drafts">): boolean {
  return run.strategy === "warp" && run.drafts.length > 0 && run.trajectory.some(isEngineRelabel);
}

/** The accepted call of an action: its last call (re-asks come before it), when recorded. */
function acceptedCall(
  action: TrajectoryAction,
  byId: ReadonlyMap<string, RecordedCall>,
): RecordedCall | null {
  const id = action.callIds?.at(-1);
  return id === undefined ? null : (byId.get(id) ?? null);
}

/** Prunes a forced-expansion run's calls at its best-scored draft (see the module comment). */
export function prunedRun(run: RecordedRun, options: { reprompt?: boolean } = {}): PrunedRun {
  const refuse = (why: string): never => {
    throw new DossierError("INPUT_INVALID", `run ${run.runId} cannot be pruned: ${why}`);
  };
  if (!isForcedExpansionRun(run)) refuse("it is not a forced-expansion warp run");
  const pruned = pruneTrajectory(run);
  const { draft } = pruned;
  if (draft.lastCallId === undefined)
    refuse("its drafts do not name the calls before them (recorded by an earlier version; record it again)");
  const cutAt = draft.lastCallId === null ? -1 : run.calls.findIndex((c) => c.callId === draft.lastCallId);
  if (draft.lastCallId !== null && cutAt < 0) refuse(`call ${draft.lastCallId} is not among its calls`);

  const byId = new Map(run.calls.map((c) => [c.callId, c]));
  const actions = run.trajectory.filter((a) => !isEngineRelabel(a));
  const decision = actions.find((a) => a.step === draft.step + 1);
  const marker = run.trajectory.find(isEngineRelabel)!;
  const unforced = unforcedOf(decision ? decision.state : marker.state);
  if (!unforced)
    refuse(
      `its decision after draft ${pruned.cut} has no unforced request (recorded by an earlier version; record it again)`,
    );
  const forcedDecisions = actions.filter((a) => a.action === "expand" && unforcedOf(a.state) !== null);
  const template = decision ? acceptedCall(decision, byId) : acceptedCall(forcedDecisions.at(-1)!, byId);
  if (!template) refuse(`the decision after draft ${pruned.cut} names no recorded call`);

  const reprompted = new Map<string, RecordedCall>();
  if (options.reprompt)
    for (const action of forcedDecisions) {
      if (action.step > draft.step) continue;
      const call = acceptedCall(action, byId);
      const request = unforcedOf(action.state);
      if (call && request && call.formatErrors.length === 0)
        reprompted.set(call.callId, unforcedCall(call, request, call.completion, call.callId));
    }
  const kept = run.calls.slice(0, cutAt + 1).map((c) => reprompted.get(c.callId) ?? c);
  const terminate = unforcedCall(template!, unforced!, unforced!.terminate, `${template!.callId}:terminate`);
  return {
    run: {
      ...run,
      calls: [...kept, terminate],
      trajectory: pruned.actions,
      drafts: run.drafts.slice(0, pruned.cut + 1),
    },
    pruned,
    terminate,
    dropped: run.calls.slice(cutAt + 1).map((c) => c.callId),
    reprompted: [...reprompted.keys()],
  };
}
