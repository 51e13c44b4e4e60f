/**
 * Research runs started over MCP, shared by every session of one server: each run's progress
 * as reported so far (for `research_status`), its report as structured content (for
 * `deep_research` and `research_result`), and the task store of runs started as MCP tasks. A run
 * belongs to the server, not to the request or session that started it: a client that goes
 * away leaves it running; only an explicit ask (the request's cancellation, `tasks/cancel`,
 * `research_cancel`, the HTTP API) cancels it. Runs started elsewhere (the HTTP API, another
 * process) are read from the store. A run started with `reviewPlan` stops after its plan
 * (`awaiting-review`): its status then carries the plan, and `review` answers it — the run
 * going on is followed as the same job (its progress goes on where it was).
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { ReportDocument } from "../core/report.ts";
import { eventStream } from "../runtime/event-stream.ts";
import type { PlanReviewView } from "../runtime/plan-review.ts";
import type { ResearchHandle, ResearchResult } from "../runtime/research-handle.ts";
import { documentOfBundle, readReport } from "../server/reports.ts";
import type { CreateRunBody, RunView } from "../server/schemas.ts";
import type { McpContext } from "./context.ts";
import {
  type PlanReviewOutput,
  type ReportOutput,
  type RunStatusOutput,
  reportResources,
} from "./output-schemas.ts";
import {
  createProgressTracker,
  type ProgressTracker,
  type ProgressUpdate,
  progressMessage,
} from "./progress.ts";
import { RunTaskStore } from "./task-store.ts";

/** A run started over MCP. */
export interface ResearchJob {
  runId: string;
  handle: ResearchHandle;
  /** Settles with the result once the run has ended and its events were all read. */
  done: Promise<ResearchResult>;
  /** Stops sending progress (the run goes on). */
  unfollow(): void;
}

/** The runs of one MCP server. */
export interface ResearchJobs {
  /** The task store of runs started as tasks. */
  readonly tasks: RunTaskStore;
  /**
   * Starts a run; resolves once its request is checked (rejects with INPUT_INVALID and the like
   * before any model call). Its steps, and heartbeats in between, go to `onProgress` from its
   * first event until `unfollow`. Nothing but `cancel` or the handle's `cancel` stops it.
   */
  start(
    args: Omit<CreateRunBody, "formats">,
    options?: { onProgress?: (update: ProgressUpdate) => void },
  ): Promise<ResearchJob>;
  /**
   * Starts a refresh of a finished run's report (a run of its own, followed like one `start`
   * began); resolves once the refresh is checked and started: an unknown run is NOT_FOUND, an
   * unfinished one, an older version or a report another refresh is writing CONFLICT.
   */
  refresh(
    idOrPrefix: string,
    options?: { maxSearches?: number; budget?: CreateRunBody["budget"] },
  ): Promise<{ job: ResearchJob; refreshOf: string; version: number }>;
  /** A run's status and progress (any run of the store, by id or unique prefix). */
  status(idOrPrefix: string): Promise<RunStatusOutput>;
  /** A finished run's report, or its status while it is not finished. */
  result(idOrPrefix: string): Promise<{ report: ReportOutput } | { status: RunStatusOutput }>;
  /** Cancels a run under way (CONFLICT when it is not running); a run awaiting review has its plan rejected. */
  cancel(idOrPrefix: string, reason?: string): Promise<RunStatusOutput>;
  /** A run's plan review (the plan awaiting it, or the one answered); null when it never stopped for one. */
  plan(idOrPrefix: string): Promise<PlanReviewView | null>;
  /**
   * Answers the plan review of a run awaiting it (`{action: "approve"}`, `{action: "edit",
   * plan}` or `{action: "reject", reason?}`; INPUT_INVALID, CONFLICT as the engine has them). An
   * approved or edited run goes on and is followed as the job it was (`job`; null when
   * rejected); an elicitation still asking about the plan is withdrawn.
   */
  review(
    idOrPrefix: string,
    answer: unknown,
    options?: { onProgress?: (update: ProgressUpdate) => void },
  ): Promise<{ job: ResearchJob | null; status: RunStatusOutput }>;
  /** The job following a run now, when it was started or resumed here. */
  latest(runId: string): ResearchJob | undefined;
  /**
   * Claims the asking of a run's review (one elicitation at a time): its `signal` aborts when
   * the review is answered otherwise; the run's progress heartbeat goes on until `done`. Null
   * when the review is being asked already.
   */
  asking(runId: string): { signal: AbortSignal; done(): void } | null;
  /** Stops the heartbeats and drops the tasks (the server is closing; runs are the manager's). */
  close(): void;
}

/** Finished runs whose last progress is remembered. */
const KEEP_FINISHED = 200;
const ENDED = new Set(["completed", "failed", "cancelled", "interrupted"]);

interface Tracked {
  runId: string;
  tracker: ProgressTracker;
  result: ResearchResult | null;
  /** Where progress goes (the request that follows the run), until unfollowed. */
  sendTo: ((update: ProgressUpdate) => void) | null;
  /** The job following the run now. */
  job: ResearchJob | null;
}

/** A run's plan review as structured content. */
function reviewOutput(view: PlanReviewView): PlanReviewOutput {
  const { plan } = view;
  return {
    stage: view.stage,
    deadline: view.deadline,
    kind: plan.kind,
    ...(plan.title ? { title: plan.title } : {}),
    items: plan.items,
    limits: {
      minItems: plan.limits.minItems,
      maxItems: plan.limits.maxItems,
      maxChildren: plan.limits.maxChildren,
      ...(plan.limits.childKind ? { childKind: plan.limits.childKind } : {}),
    },
  };
}

/** The report of a finished run as structured content. */
export function reportOutput(
  doc: ReportDocument | null,
  result: Pick<ResearchResult, "runId" | "status" | "stopReason" | "usage" | "markdown">,
  query: string,
): ReportOutput {
  return {
    runId: result.runId,
    status: result.status,
    stopReason: result.stopReason,
    title: doc?.title ?? query,
    markdown: result.markdown ?? doc?.markdown ?? "",
    references: (doc?.references ?? []).map(({ number, title, locator, kind }) => ({
      number,
      title,
      locator,
      kind,
    })),
    resources: reportResources(result.runId),
    usage: result.usage,
  };
}

/** Creates the run registry of one MCP server (stdio) or of one HTTP route's sessions. */
export function createResearchJobs(context: McpContext): ResearchJobs {
  const { dossier, runs } = context;
  const tasks = new RunTaskStore();
  const tracked = new Map<string, Tracked>();
  /** Elicitations asking about a run's review now, by run id. */
  const asks = new Map<string, AbortController>();
  const forget = () => {
    const finished = [...tracked.values()].filter((t) => t.result !== null);
    for (const t of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) tracked.delete(t.runId);
  };

  const statusOf = async (view: RunView, t: Tracked | undefined): Promise<RunStatusOutput> => {
    let message: string | null = null;
    let steps = 0;
    if (t) {
      const snap = t.tracker.snapshot();
      message = snap.message;
      steps = snap.steps;
    } else {
      // A run started elsewhere: its steps from the store.
      for (const event of await dossier.runs.events(view.id).catch(() => [] as DossierEvent[])) {
        const text = progressMessage(event);
        if (text !== null) {
          message = text;
          steps += 1;
        }
      }
    }
    const done = ENDED.has(view.status);
    const review =
      view.status === "awaiting-review" ? await dossier.runs.plan(view.id).catch(() => null) : null;
    return {
      runId: view.id,
      status: view.status,
      done,
      question: view.query,
      strategy: view.strategy,
      stopReason: view.stopReason,
      error: view.error,
      progress: { message, steps },
      usage: view.usage,
      ...(review ? { review: reviewOutput(review) } : {}),
      next: review
        ? `the run awaits review of its plan until ${review.deadline}: call research_review with runId ${view.id} and action approve, edit (with plan: its items in the order to run them — an item keeping its id is kept, reworded when its title changed; an item without an id is added; an item left out is removed) or reject`
        : done
          ? view.status === "completed"
            ? `call research_result with runId ${view.id} for the report`
            : view.status === "failed"
              ? "the run failed; see error"
              : `the run is ${view.status}; it can be resumed over the HTTP API or with dossier runs resume`
          : `call research_status with runId ${view.id} again in a little while (runs take minutes)`,
    };
  };

  /**
   * Follows a started run: its progress to `onProgress`, its result kept once it has ended. A
   * run going on after its plan review is followed with the progress it had (`entry`).
   */
  const follow = (
    handle: ResearchHandle,
    options: { onProgress?: (update: ProgressUpdate) => void },
    earlier?: { entry: Tracked | undefined; afterSeq: number },
  ): ResearchJob => {
    let entry: Tracked;
    if (earlier?.entry) {
      entry = earlier.entry;
      entry.result = null;
      if (options.onProgress) entry.sendTo = options.onProgress;
      entry.tracker.resume();
    } else {
      const tracker = createProgressTracker({
        send: (update) => entry.sendTo?.(update),
        ...(context.heartbeatMs !== undefined ? { heartbeatMs: context.heartbeatMs } : {}),
      });
      entry = { runId: handle.runId, tracker, result: null, sendTo: options.onProgress ?? null, job: null };
    }
    const { tracker } = entry;
    tracked.set(handle.runId, entry);
    // A run going on after its review: its events after the pause (the handle's start from the first).
    const events = earlier
      ? eventStream(dossier.store.events, handle.runId, handle.done, earlier.afterSeq)
      : handle;
    const pumped = (async () => {
      for await (const event of events) tracker.event(event);
    })();
    const done = Promise.all([handle.done, pumped.catch(() => {})]).then(([result]) => {
      entry.result = result;
      return result;
    });
    void done.then(
      () => {
        // Unless the run already goes on after its review (a later job follows it).
        if (entry.result !== null) tracker.stop();
        forget();
      },
      () => tracker.stop(),
    );
    const job: ResearchJob = {
      runId: handle.runId,
      handle,
      done,
      unfollow() {
        entry.sendTo = null;
      },
    };
    entry.job = job;
    return job;
  };

  const jobs: ResearchJobs = {
    tasks,
    async start(args, options = {}) {
      return follow(await runs.start(args), options);
    },
    async refresh(idOrPrefix, options = {}) {
      const view = await runs.view(idOrPrefix);
      const { startRefresh } = await import("../runtime/refresh.ts");
      let started!: () => void;
      const ready = new Promise<void>((resolve) => {
        started = resolve;
      });
      const { handle, refreshOf, version } = await startRefresh(dossier, view.id, {
        onEvent: (event) => {
          if (event.type === "run-start") started();
        },
        ...(options.budget ? { budget: options.budget } : {}),
        ...(options.maxSearches === undefined ? {} : { maxSearches: options.maxSearches }),
      });
      // A refresh refused while it is prepared or created rejects here with its coded error.
      await Promise.race([ready, handle.done.then(() => undefined)]);
      return { job: follow(handle, {}), refreshOf, version };
    },
    async status(idOrPrefix) {
      const view = await runs.view(idOrPrefix);
      return statusOf(view, tracked.get(view.id));
    },
    async result(idOrPrefix) {
      const view = await runs.view(idOrPrefix);
      const t = tracked.get(view.id);
      if (view.status !== "completed") return { status: await statusOf(view, t) };
      if (t?.result?.report) return { report: reportOutput(t.result.report, t.result, view.query) };
      const base = {
        runId: view.id,
        status: view.status,
        stopReason: view.stopReason ?? "completed",
        usage: view.usage,
      };
      try {
        const doc = documentOfBundle(await readReport(dossier.runs, view.id, "json"));
        return { report: reportOutput(doc, { ...base, markdown: doc.markdown }, view.query) };
      } catch (error) {
        if (!(error instanceof DossierError) || error.code !== "NOT_FOUND") throw error;
        // Written without its JSON bundle: the Markdown alone.
        const markdown = await readReport(dossier.runs, view.id, "md");
        return { report: reportOutput(null, { ...base, markdown }, view.query) };
      }
    },
    async cancel(idOrPrefix, reason = "cancelled by the MCP client (research_cancel)") {
      const view = await runs.view(idOrPrefix);
      asks.get(view.id)?.abort(new Error("the run was cancelled"));
      const handle = runs.handle(view.id);
      if (handle) handle.cancel(reason);
      else await runs.cancel(view.id);
      return { ...(await statusOf(view, tracked.get(view.id))), status: "cancelling", done: false };
    },
    async plan(idOrPrefix) {
      const view = await runs.view(idOrPrefix);
      return dossier.runs.plan(view.id);
    },
    async review(idOrPrefix, answer, options = {}) {
      const view = await runs.view(idOrPrefix);
      // The run's last event is the pause's run-end: what follows is the run going on.
      const paused = await dossier.store.events.list(view.id, { types: ["run-end"] });
      const afterSeq = paused.at(-1)?.seq ?? 0;
      const { handle } = await runs.review(view.id, answer);
      asks.get(view.id)?.abort(new Error("the review was answered"));
      const job = handle ? follow(handle, options, { entry: tracked.get(view.id), afterSeq }) : null;
      return { job, status: await jobs.status(view.id) };
    },
    latest: (runId) => tracked.get(runId)?.job ?? undefined,
    asking(runId) {
      if (asks.has(runId)) return null;
      const controller = new AbortController();
      asks.set(runId, controller);
      const entry = tracked.get(runId);
      // A request held open while the user reviews keeps hearing from the run.
      entry?.tracker.resume();
      return {
        signal: controller.signal,
        done() {
          if (asks.get(runId) === controller) asks.delete(runId);
          if (entry && entry.result !== null) entry.tracker.stop();
        },
      };
    },
    close() {
      for (const t of tracked.values()) t.tracker.stop();
      for (const controller of asks.values()) controller.abort(new Error("the MCP server is closing"));
      asks.clear();
      tasks.cleanup();
    },
  };
  return jobs;
}
