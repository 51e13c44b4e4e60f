/**
 * The teacher states of atomic-skill rollouts (AgentCPM-Report Appendix A.6.1: single-step RL
 * "using teacher trajectories as anchors"): from a folder of recorded warp rollouts, every place
 * the teacher took the action asked for, with the request it answered and the reference the
 * atomic reward compares a sample with.
 *
 * - The trajectory is the pruned one for a forced-expansion teacher (WARP §2.3.1,
 *   curation/warp-pruned-run.ts): its actions up to the best-scored draft; its deepening
 *   decisions are states on their *unforced* request (TERMINATE offered), the reference EXPAND
 *   before the cut and TERMINATE at it. Any other teacher's trajectory is read whole, the
 *   reference of a decision being the teacher's own.
 * - The request is the teacher's accepted call for the action as recorded — its system prompt,
 *   its first user turn (a repair round's refused reply and note left out), its response schema
 *   and output cap — re-sent as it is. An action whose every reply was refused (the run fell back)
 *   has no accepted call and is no state.
 * - References: SEARCH the documents (locators) the teacher's search retrieved (a state where it
 *   retrieved none is left out: recall needs golden documents); WRITE the evidence ids the teacher
 *   cited and its paragraph; INITIALIZE the teacher's outline; a decision EXPAND or TERMINATE.
 *
 * Only warp's JSON protocol is read (the decoder of atomic-actions.ts is that protocol's).
 */

import { DossierError, isDossierError } from "../../core/errors.ts";
import { unforcedCall, unforcedOf } from "../curation/unforced-decision.ts";
import { isForcedExpansionRun, prunedRun } from "../curation/warp-pruned-run.ts";
import type { RecordedCall } from "../recorded-call.ts";
import type { RecordedRun, TrajectoryAction } from "../recorded-run.ts";
import { warpActionSamples } from "../rewards/warp.ts";
import type { WarpReference } from "../rewards/warp-atomic.ts";
import { citedIds } from "../rewards/warp-atomic.ts";
import { type AtomicAction, expandableOf, teacherActionsOf } from "./atomic-actions.ts";

/** One teacher state. */
export interface TeacherState {
  /** `<teacher run id>/<trajectory step>`: the group of its samples. */
  key: string;
  action: AtomicAction;
  teacher: RecordedRun;
  /** The teacher's action at this state (for a relabelled TERMINATE, the decision it replaced). */
  step: number;
  /** What the teacher's action saw (`state` of its trajectory step, `unforced` left out). */
  seen: Record<string, unknown>;
  /** The request to sample: the teacher's call, its prompt only. */
  request: RecordedCall;
  reference: WarpReference;
}

/** What {@link teacherStates} found, and the teacher runs it could not read, with the reason. */
export interface TeacherStates {
  states: TeacherState[];
  skipped: { runId: string; reason: string }[];
}

/** The call's prompt: its messages before the first assistant turn (a repair round's reply and note left out). */
function promptOnly(call: RecordedCall): RecordedCall {
  const cut = call.messages.findIndex((m) => m.role === "assistant");
  return { ...call, messages: cut < 0 ? [...call.messages] : call.messages.slice(0, cut) };
}

function accepted(action: TrajectoryAction, byId: ReadonlyMap<string, RecordedCall>): RecordedCall | null {
  const id = action.callIds?.at(-1);
  const call = id === undefined ? undefined : byId.get(id);
  return call && !call.error && call.formatErrors.length === 0 ? call : null;
}

/** What an action saw, without what only pruning reads (the unforced request, the relabel marker's cut). */
function seenOf(state: unknown): Record<string, unknown> {
  const {
    unforced: _u,
    relabelled: _r,
    cut: _c,
    ...seen
  } = (typeof state === "object" && state !== null ? state : {}) as Record<string, unknown>;
  return seen;
}

/** The teacher states of `action` in `runs` (see the module comment). */
export function teacherStates(runs: readonly RecordedRun[], action: AtomicAction): TeacherStates {
  const states: TeacherState[] = [];
  const skipped: TeacherStates["skipped"] = [];
  const wanted = new Set(teacherActionsOf(action));
  for (const teacher of runs) {
    if (teacher.strategy !== "warp") {
      skipped.push({ runId: teacher.runId, reason: `a ${teacher.strategy} rollout, not warp` });
      continue;
    }
    const byId = new Map(teacher.calls.map((c) => [c.callId, c]));
    const samples = new Map(warpActionSamples(teacher).map((s) => [s.step, s]));
    let actions = teacher.trajectory;
    // A forced-expansion teacher: the pruned trajectory; its decisions on their unforced requests.
    let terminate: { call: RecordedCall; step: number; state: unknown } | null = null;
    let cutStep = Number.POSITIVE_INFINITY;
    if (isForcedExpansionRun(teacher)) {
      try {
        const pruned = prunedRun(teacher);
        cutStep = pruned.pruned.draft.step;
        actions = pruned.run.trajectory.filter((a) => a.step <= cutStep);
        const decision = teacher.trajectory.find((a) => a.step === cutStep + 1 && a.action !== "terminate");
        const marker = teacher.trajectory.find((a) => a.step === cutStep + 1);
        terminate = { call: pruned.terminate, step: cutStep + 1, state: (decision ?? marker)?.state };
      } catch (error) {
        if (!isDossierError(error, "INPUT_INVALID")) throw error;
        skipped.push({ runId: teacher.runId, reason: error.message });
        continue;
      }
    }
    const add = (step: number, state: unknown, request: RecordedCall, reference: WarpReference) =>
      states.push({
        key: `${teacher.runId}/${step}`,
        action,
        teacher,
        step,
        seen: seenOf(state),
        request: promptOnly(request),
        reference,
      });
    for (const a of actions) {
      if (!wanted.has(a.action)) continue;
      const call = accepted(a, byId);
      if (!call) continue;
      const sample = samples.get(a.step);
      if (action === "deepen") {
        const unforced = cutStep < Number.POSITIVE_INFINITY ? unforcedOf(a.state) : null;
        if (cutStep < Number.POSITIVE_INFINITY && !unforced) continue;
        const request = unforced ? unforcedCall(call, unforced, "", call.callId) : call;
        add(a.step, a.state, request, { decision: a.action === "terminate" ? "terminate" : "expand" });
      } else if (action === "search") {
        const docs = sample?.retrieved ?? [];
        if (docs.length > 0) add(a.step, a.state, call, { docs });
      } else if (action === "write") {
        const content = sample?.content ?? "";
        add(a.step, a.state, call, { citations: citedIds(content), text: content });
      } else {
        const plan = sample?.plan ?? [];
        add(a.step, a.state, call, { text: plan.map((s) => `${s.title}: ${s.plan}`).join("\n") });
      }
    }
    if (action === "deepen" && terminate)
      add(terminate.step, terminate.state, terminate.call, { decision: "terminate" });
  }
  return { states, skipped };
}

/** What a sample's decoder needs of its state. */
export function stateContext(state: TeacherState): { expandable?: ReadonlySet<string> } {
  return state.action === "deepen" ? { expandable: expandableOf(state.seen) } : {};
}

/** Refuses a teacher folder with no state of the action. */
export function requireStates(found: TeacherStates, action: AtomicAction, dir: string): TeacherState[] {
  if (found.states.length > 0) return found.states;
  const why = found.skipped
    .slice(0, 3)
    .map((s) => `${s.runId}: ${s.reason}`)
    .join("; ");
  throw new DossierError(
    "INPUT_INVALID",
    `${dir} holds no teacher state of ${action}${why ? ` (${why})` : ""}: atomic rollouts need recorded warp rollouts in which the teacher took it`,
  );
}
