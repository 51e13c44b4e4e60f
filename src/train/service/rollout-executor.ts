/**
 * Where the runs of rollouts execute: in the service's process (embedded), or on `dossier
 * worker` processes through the run queue, enqueued the way `dossier serve` and `dossier train
 * rollouts` enqueue research runs (`queuedResearch`: checked, stored `queued`, followed in the
 * shared store). Either way a rollout's run is started from its policy's Dossier, so the checks
 * and the stored options are the policy's; a worker runs it with its policy too (see
 * policy-dossiers.ts).
 */

import type { QueuedResearch, QueuedResearchOptions } from "../../queue/queued-research.ts";
import type { RunQueue } from "../../queue/run-queue.ts";
import type { Dossier } from "../../runtime/dossier.ts";
import type { ResearchHandle, ResearchOptions, ResumeOptions } from "../../runtime/research-handle.ts";

/** Starts and resumes the runs of rollouts. */
export interface RolloutExecutor {
  readonly mode: "embedded" | "queue";
  /** Starts a run (`options.runId` is set) with `dossier` (a policy's). */
  research(dossier: Dossier, question: string, options: ResearchOptions): ResearchHandle;
  /** Takes up a stored run from its journal. */
  resume(dossier: Dossier, runId: string, options: ResumeOptions): ResearchHandle;
}

/** Runs in this process. */
export function embeddedExecutor(): RolloutExecutor {
  return {
    mode: "embedded",
    research: (dossier, question, options) => dossier.research(question, options),
    resume: (dossier, runId, options) => dossier.runs.resume(runId, options),
  };
}

/** Runs on workers, through `queue`. */
export async function queueExecutor(
  queue: RunQueue,
  options: QueuedResearchOptions = {},
): Promise<RolloutExecutor> {
  const { queuedResearch } = await import("../../queue/queued-research.ts");
  const wrapped = new WeakMap<Dossier, QueuedResearch>();
  const of = (dossier: Dossier) => {
    let queued = wrapped.get(dossier);
    if (!queued) {
      queued = queuedResearch(dossier, queue, options);
      wrapped.set(dossier, queued);
    }
    return queued;
  };
  return {
    mode: "queue",
    research: (dossier, question, researchOptions) => of(dossier).research(question, researchOptions),
    resume: (dossier, runId, resumeOptions) => of(dossier).runs.resume(runId, resumeOptions),
  };
}
