/**
 * Runs as the composition root offers them: stored runs and their events, and the runs this
 * process has under way, which can be cancelled by id.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import { parsePlanAnswer } from "../core/plan-edit.ts";
import type { RunRecord, RunStatus } from "../core/run.ts";
import type { EventQuery, Store } from "../store/types.ts";
import {
  answerPlanReview,
  expireDueReviews,
  expireReview,
  type PlanReviewView,
  type ReviewAnswered,
  readPlanReview,
} from "./plan-review.ts";
import type { ResearchHandle, ResumeOptions } from "./research-handle.ts";

/** How a review answered through the runs API left the run. */
export interface ReviewOutcome extends ReviewAnswered {
  /** The run going on with the approved plan (approved or edited), or null (rejected). */
  handle: ResearchHandle | null;
}

/** Stored and running runs. */
export interface RunsApi {
  /** Stored runs, newest first. */
  list(options?: { limit?: number; status?: RunStatus }): Promise<RunRecord[]>;
  /** One stored run by id or unique id prefix; NOT_FOUND otherwise. */
  get(idOrPrefix: string): Promise<RunRecord>;
  /** The full id of a run under way here or stored, from an id or unique id prefix. */
  resolveId(idOrPrefix: string): Promise<string>;
  /** A run's stored events. */
  events(idOrPrefix: string, query?: EventQuery): Promise<DossierEvent[]>;
  /** Ids of the runs under way in this process. */
  active(): string[];
  /** The handle of a run under way in this process, if any. */
  handle(runId: string): ResearchHandle | undefined;
  /**
   * Cancels a run under way in this process (by id or unique prefix of the runs under way
   * here); false when no such run is under way here.
   */
  cancel(idOrPrefix: string, reason?: string): boolean;
  /**
   * Cancels a run wherever it runs: here at once, in another process (a worker) at its next
   * heartbeat. False when the run is not running.
   */
  requestCancel(idOrPrefix: string, reason?: string): Promise<boolean>;
  /**
   * Resumes an interrupted, cancelled or failed run with the same id (a full id: see
   * `resolveId`): its journal replays (no second request for a completed step) and its event log
   * continues. `done` rejects with NOT_FOUND for an unknown id, with CONFLICT when the run is
   * completed or still running.
   */
  resume(runId: string, options?: ResumeOptions): ResearchHandle;
  /**
   * A run's plan review (`reviewPlan`): the plan awaiting review, or the one approved, edited or
   * rejected; null when the run never stopped for one. A review past its deadline is ended first.
   */
  plan(idOrPrefix: string): Promise<PlanReviewView | null>;
  /**
   * Answers the review of a run `awaiting-review` (`answer`: `{action: "approve"}`,
   * `{action: "edit", plan}` or `{action: "reject", reason?}`, checked with zod): an approved or
   * edited plan goes into the run's journal and the run goes on here with exactly that plan (the
   * handle); a rejected run ends `cancelled`. Rejects with INPUT_INVALID (a bad answer or an edit
   * outside the plan's limits), CONFLICT (not awaiting review, timed out, answered elsewhere) or
   * the run's preparation error — nothing changed.
   */
  review(idOrPrefix: string, answer: unknown, options?: ResumeOptions): Promise<ReviewOutcome>;
}

/** What the runs API needs to answer reviews in this process. */
export interface ReviewHooks {
  /** Checks, before the answer is recorded, that the run can be taken up here (its request and configuration). */
  precheck?: (record: RunRecord) => Promise<void>;
}

/** The runs API over a store and the registry of running handles. */
export function runsApi(
  store: Store,
  active: ReadonlyMap<string, ResearchHandle>,
  resume: (runId: string, options: ResumeOptions) => ResearchHandle,
  clock: { now(): number } = Date,
  /**
   * Settles when stored runs may be read (runs of dead processes are marked first); a function
   * is called when stored runs are first read.
   */
  ready: Promise<void> | (() => Promise<void>) = Promise.resolve(),
  hooks: ReviewHooks = {},
): RunsApi {
  const settled = () => (typeof ready === "function" ? ready() : ready);
  const reviews = { store, clock };
  /** A run awaiting a review that is past its deadline is ended (failed, REVIEW_TIMEOUT) before it is read. */
  const current = async (record: RunRecord | undefined): Promise<RunRecord | undefined> => {
    if (record?.status !== "awaiting-review") return record;
    const view = await readPlanReview(store, record.id);
    if (view?.stage !== "pending" || clock.now() < Date.parse(view.deadline)) return record;
    await expireReview(reviews, view);
    return store.runs.get(record.id);
  };
  const resolveId = async (idOrPrefix: string) => {
    if (active.has(idOrPrefix)) return idOrPrefix;
    await settled();
    return store.runs.resolveId(idOrPrefix);
  };
  /** The run under way here that `idOrPrefix` names (exactly or as its only prefix). */
  const localId = (idOrPrefix: string): string | undefined => {
    if (active.has(idOrPrefix)) return idOrPrefix;
    const matches = [...active.keys()].filter((id) => id.startsWith(idOrPrefix));
    return matches.length === 1 ? matches[0] : undefined;
  };
  const api: RunsApi = {
    list: async (options) => {
      await settled();
      await expireDueReviews(reviews);
      return store.runs.list(options);
    },
    resolveId,
    async get(idOrPrefix) {
      const record = await current(await store.runs.get(await resolveId(idOrPrefix)));
      if (!record) throw new DossierError("NOT_FOUND", `no run "${idOrPrefix}"`);
      return record;
    },
    async plan(idOrPrefix) {
      const runId = await resolveId(idOrPrefix);
      await current(await store.runs.get(runId));
      return readPlanReview(store, runId);
    },
    async review(idOrPrefix, answer, options = {}) {
      const parsed = parsePlanAnswer(answer);
      const runId = await resolveId(idOrPrefix);
      const answered = await answerPlanReview(reviews, runId, parsed, hooks.precheck);
      return { ...answered, handle: parsed.action === "reject" ? null : resume(runId, options) };
    },
    events: async (idOrPrefix, query) => store.events.list(await resolveId(idOrPrefix), query),
    active: () => [...active.keys()],
    handle: (runId) => active.get(runId),
    resume: (runId, options = {}) => resume(runId, options),
    cancel(idOrPrefix, reason) {
      const id = localId(idOrPrefix);
      const handle = id === undefined ? undefined : active.get(id);
      if (!handle) return false;
      handle.cancel(reason);
      return true;
    },
    async requestCancel(idOrPrefix, reason = "cancelled by user") {
      if (api.cancel(idOrPrefix, reason)) return true;
      const id = await resolveId(idOrPrefix);
      // A run awaiting review is held by no process: cancelling it rejects its plan.
      if ((await current(await store.runs.get(id)))?.status === "awaiting-review") {
        await answerPlanReview(reviews, id, { action: "reject", reason });
        return true;
      }
      return store.runs.requestCancel(id, reason, new Date(clock.now()).toISOString());
    },
  };
  return api;
}
