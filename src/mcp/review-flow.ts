/**
 * An MCP research run through its plan review: followed to its end, and when it stops after its
 * plan (`reviewPlan`) and the client takes elicitation requests, the review is asked through
 * one (plan-elicitation.ts) and the run followed on with the answer. Unanswered there (no
 * elicitation, the form declined, the client gone), the run is left awaiting review, for
 * `research_status` and `research_review`; answered meanwhile by another way (research_review,
 * the HTTP API), the run is followed on, or its end told.
 */

import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { ResearchResult } from "../runtime/research-handle.ts";
import type { RunStatusOutput } from "./output-schemas.ts";
import { elicitReview } from "./plan-elicitation.ts";
import type { ProgressUpdate } from "./progress.ts";
import type { ResearchJob, ResearchJobs } from "./research-jobs.ts";

/** Sends one elicitation request; `signal` withdraws it, `timeoutMs` is how long the user has. */
export type AskReview = (
  params: ElicitRequestFormParams,
  options: { signal: AbortSignal; timeoutMs: number },
) => Promise<ElicitResult>;

/** How a run followed through its review came out. */
export type ReviewFlowOutcome =
  /** The run ended (completed, failed, cancelled…): its last attempt's result. */
  | { kind: "ended"; job: ResearchJob; result: ResearchResult }
  /** The run awaits review still: `why` it was not answered here. */
  | { kind: "awaiting"; job: ResearchJob; status: RunStatusOutput; why: string }
  /** The review was rejected or timed out (here or elsewhere): the run as it ended. */
  | { kind: "stopped"; status: RunStatusOutput };

/** The longest timer Node keeps (ms): about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The run `current` stopped for review and it was not answered here: the job following it now
 * when it was answered another way meanwhile (to follow on), else how it stands.
 */
async function unanswered(
  jobs: ResearchJobs,
  current: ResearchJob,
  why: string,
): Promise<ResearchJob | ReviewFlowOutcome> {
  const later = jobs.latest(current.runId);
  if (later && later !== current) return later;
  const status = await jobs.status(current.runId);
  if (status.status !== "awaiting-review") return { kind: "stopped", status };
  return { kind: "awaiting", job: current, status, why };
}

/** Asks the review of the run `current` stopped for: the job following it on, or how it stands. */
async function askOnce(
  jobs: ResearchJobs,
  current: ResearchJob,
  ask: AskReview,
  options: { question: string; onProgress?: (update: ProgressUpdate) => void },
): Promise<ResearchJob | ReviewFlowOutcome> {
  const { runId } = current;
  const view = await jobs.plan(runId);
  const slot = view?.stage === "pending" ? jobs.asking(runId) : null;
  if (!view || !slot)
    return unanswered(jobs, current, "the review is being asked elsewhere, or was answered");
  const timeoutMs = Math.min(MAX_TIMER_MS, Math.max(1000, Date.parse(view.deadline) - Date.now()));
  try {
    const asked = await elicitReview({
      view,
      question: options.question,
      ask: (params) => ask(params, { signal: slot.signal, timeoutMs }),
      submit: async (answer) =>
        (await jobs.review(runId, answer, options.onProgress ? { onProgress: options.onProgress } : {})).job,
    });
    if (!asked.answered) return unanswered(jobs, current, asked.why);
    // Rejected: the run ended cancelled.
    return asked.outcome ?? { kind: "stopped", status: await jobs.status(runId) };
  } catch (error) {
    // The answer was refused: answered another way meanwhile, or past its deadline.
    return unanswered(jobs, current, `the answer was not recorded: ${(error as Error).message}`);
  } finally {
    slot.done();
  }
}

/**
 * Follows `job` to its end through its plan reviews, each asked with `ask` when there is one
 * (null: the client takes no elicitation requests).
 */
export async function followThroughReview(
  jobs: ResearchJobs,
  job: ResearchJob,
  options: {
    question: string;
    ask: AskReview | null;
    onProgress?: (update: ProgressUpdate) => void;
  },
): Promise<ReviewFlowOutcome> {
  let current = job;
  for (;;) {
    const result = await current.done;
    if (result.status !== "awaiting-review") return { kind: "ended", job: current, result };
    const next = options.ask
      ? await askOnce(jobs, current, options.ask, options)
      : await unanswered(jobs, current, "the client takes no elicitation requests");
    if ("kind" in next) return next;
    current = next;
  }
}
