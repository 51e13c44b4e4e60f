/**
 * A research run as the library hands it out: the run id at once, the result as a promise,
 * cancel, and the run's events as a callback or an async iterable. Preparation (checking the
 * request and configuration, indexing documents) happens inside the handle, so a bad request
 * rejects `done` with a clear error before any model is called.
 */

import { resolve } from "node:path";
import type { Clock } from "../core/clock.ts";
import { type DossierError, toDossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import type { ReportDocument } from "../core/report.ts";
import type { ReviewPlan } from "../core/review-plan.ts";
import type { RunRecord, RunStatus } from "../core/run.ts";
import type { UsageTotals } from "../core/usage.ts";
import type { ClarifyCallback } from "../kit/router.ts";
import type { LlmClientOptions } from "../llm/client.ts";
import { renderMarkdown } from "../render/markdown.ts";
import { createStrategyRegistry } from "../strategies/registry.ts";
import type { IndexSummary } from "../tools/corpus/types.ts";
import type { Config } from "./config.ts";
import { eventStream } from "./event-stream.ts";
import { readPlanReview } from "./plan-review.ts";
import {
  type PreparedResearch,
  parseResearchRequest,
  prepareResearch,
  type ResearchEnvironment,
  type ResearchRunOutcome,
  startResearch,
} from "./research.ts";
import { checkDocsFolder } from "./research-checks.ts";
import type { ResearchRequest } from "./research-request.ts";
import { prepareResume } from "./resume.ts";
import type { RunHandle } from "./run.ts";
import { createRunId } from "./run-id.ts";

/** Options of one research run: the request (without the question) and callbacks. */
export interface ResearchOptions extends Omit<ResearchRequest, "query"> {
  /** Cancels the run when it aborts (before or during the run). */
  signal?: AbortSignal;
  /** Called with every event of the run, in order. */
  onEvent?: (event: DossierEvent) => void;
  /** Called once the request is checked and documents are indexed, before the run starts. */
  onPrepared?: (prepared: PreparedResearch) => void;
  /** Called with indexing progress of the docs folder. */
  onIndexed?: (summary: IndexSummary) => void;
  /** Answers clarifying questions (graph strategy, interactive use). */
  clarify?: ClarifyCallback;
  /** A fixed run id (default: a new one). */
  runId?: string;
}

/** How a research run ended. */
export interface ResearchResult {
  runId: string;
  status: RunStatus;
  /** Why exploration stopped (`completed`, `budget:tokens`, `cancelled: …`, `error: …`). */
  stopReason: string;
  /** The report, when the strategy produced one. */
  report: ReportDocument | null;
  /** The report as Markdown (as the `.md` file holds it), when there is one. */
  markdown: string | null;
  /** Files the report was written to. */
  paths: string[];
  usage: UsageTotals | null;
  /** What failed, for a failed run. */
  error: DossierError | null;
  /** The stored run record. */
  record: RunRecord;
  /**
   * The plan awaiting review, when the run stopped after it (`status: "awaiting-review"`, with
   * `reviewPlan`); answer it with `dossier.runs.review`. Null otherwise.
   */
  plan: ReviewPlan | null;
}

/** A research run under way. */
export interface ResearchHandle extends AsyncIterable<DossierEvent> {
  /** The run's id, known before it starts. */
  readonly runId: string;
  /**
   * Settles when the run has ended and been recorded. Rejects only when nothing ran: the
   * request or the configuration is invalid, or the run was cancelled while being prepared.
   * A run that failed resolves with `status: "failed"` and its `error`.
   */
  readonly done: Promise<ResearchResult>;
  /** Cancels the run (or its preparation). */
  cancel(reason?: string): void;
  /** The run's events from the first one, ending with run-end. */
  events(): AsyncIterable<DossierEvent>;
}

/** What a handle runs with. */
export interface ResearchDeps
  extends Omit<ResearchEnvironment, "signal" | "runId" | "clarify" | "onIndexed"> {
  clock: Clock;
  llm?: Pick<LlmClientOptions, "retry" | "timeoutMs" | "random" | "defaultMaxOutputTokens">;
}

/** Starts preparing and running one research job. */
export function startResearchHandle(
  question: string,
  options: ResearchOptions,
  deps: ResearchDeps,
): ResearchHandle {
  const { signal, onEvent, onPrepared, onIndexed, clarify, runId: fixedId, ...request } = options;
  const runId = fixedId ?? createRunId(deps.clock.now());
  // A request that cannot run is refused before the store is touched: a refused command leaves
  // no database behind.
  const precheck = () => {
    const parsed = parseResearchRequest(withConfigDefaults(question, request, deps.config));
    if (parsed.strategy) (deps.strategies ?? createStrategyRegistry()).get(parsed.strategy);
    if (parsed.docs) checkDocsFolder(resolve(deps.cwd ?? process.cwd(), parsed.docs), parsed.docs);
  };
  return makeHandle(runId, { signal, onEvent, precheck }, deps, async (environment, aborted) => {
    const prepared = await prepareResearch(withConfigDefaults(question, request, deps.config), {
      ...environment,
      ...(onIndexed ? { onIndexed } : {}),
      ...(clarify ? { clarify } : {}),
    });
    if (aborted()) {
      prepared.corpus?.index.close();
      return null;
    }
    onPrepared?.(prepared);
    return startResearch(prepared, { ...environment, ...(clarify ? { clarify } : {}) });
  });
}

/** Options of a resume: the callbacks of a research run (the request is the stored one). */
export type ResumeOptions = Pick<ResearchOptions, "signal" | "onEvent" | "onPrepared">;

/** Resumes the stored run `runId` (a full id) on a handle; see `prepareResume`. */
export function resumeResearchHandle(
  runId: string,
  options: ResumeOptions,
  deps: ResearchDeps,
): ResearchHandle {
  return makeHandle(runId, options, deps, async (environment, aborted) => {
    const { prepared, resume } = await prepareResume(runId, environment);
    if (aborted()) {
      prepared.corpus?.index.close();
      await deps.store.runs.update(runId, {
        status: "cancelled",
        updatedAt: new Date(deps.clock.now()).toISOString(),
      });
      return null;
    }
    options.onPrepared?.(prepared);
    return startResearch(prepared, environment, resume);
  });
}

/** The handle around a run that `start` prepares and starts (null: cancelled while preparing). */
function makeHandle(
  runId: string,
  options: Pick<ResearchOptions, "signal" | "onEvent"> & { afterSeq?: number; precheck?: () => void },
  deps: ResearchDeps,
  start: (
    environment: ResearchEnvironment,
    aborted: () => boolean,
  ) => Promise<RunHandle<ResearchRunOutcome> | null>,
): ResearchHandle {
  const { signal, onEvent } = options;
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(signal?.reason ?? "cancelled");
  if (signal?.aborted) onOuterAbort();
  else signal?.addEventListener("abort", onOuterAbort, { once: true });
  let unsubscribe = () => {};

  const done = (async (): Promise<ResearchResult> => {
    try {
      options.precheck?.();
      if (onEvent) unsubscribe = deps.store.events.subscribe(runId, onEvent);
      // A store that cannot be used (a database URL that does not answer) fails here, before
      // anything is prepared or recorded: a clear STORE_ERROR, not a run that cannot start.
      await deps.store.ready();
      const environment: ResearchEnvironment = { ...deps, runId, signal: controller.signal };
      const handle = await start(environment, () => controller.signal.aborted);
      if (!handle) throw toDossierError(controller.signal.reason ?? "cancelled", "CANCELLED");
      const result = await handle.done;
      const ended = resultOf(result.record, result.outcome, result.error);
      if (result.record.status !== "awaiting-review") return ended;
      return { ...ended, plan: (await readPlanReview(deps.store, runId))?.plan ?? null };
    } finally {
      unsubscribe();
      signal?.removeEventListener("abort", onOuterAbort);
    }
  })();

  const events = () => eventStream(deps.store.events, runId, done, options.afterSeq ?? 0);
  return {
    runId,
    done,
    cancel: (reason = "cancelled by user") => controller.abort(reason),
    events,
    [Symbol.asyncIterator]: () => events()[Symbol.asyncIterator](),
  };
}

/** The request with the configuration's budget and language under the caller's. */
export function withConfigDefaults(
  question: string,
  request: Omit<ResearchRequest, "query">,
  config: Config,
): ResearchRequest {
  return {
    ...request,
    query: question,
    budget: { ...config.budget, ...request.budget },
    ...(request.language === undefined && config.language ? { language: config.language } : {}),
  };
}

function resultOf(
  record: RunRecord,
  outcome: ResearchRunOutcome | null,
  error: DossierError | null,
): ResearchResult {
  return {
    runId: record.id,
    status: record.status,
    stopReason: record.stopReason ?? record.status,
    report: outcome?.report ?? null,
    markdown: outcome ? renderMarkdown(outcome.report) : null,
    paths: outcome?.paths ?? [],
    usage: record.usage ?? null,
    error,
    record,
    plan: null,
  };
}
