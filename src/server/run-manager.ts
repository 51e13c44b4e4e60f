/**
 * The runs the server starts: a limit on how many run at once (429 over it), creation that
 * answers once the request is checked, resume, cancel, and the API's view of a run.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import { parsePlanAnswer } from "../core/plan-edit.ts";
import type { RunRecord } from "../core/run.ts";
import type { QueuedResearch } from "../queue/queued-research.ts";
import type { AskResult } from "../runtime/ask-run.ts";
import type { Dossier } from "../runtime/dossier.ts";
import { expireDueReviews, type PlanReviewView } from "../runtime/plan-review.ts";
import type { ResearchHandle } from "../runtime/research-handle.ts";
import { ApiError } from "./errors.ts";
import { idempotentRunId } from "./idempotency.ts";
import { reportFormats } from "./reports.ts";
import type { AskBody, CreateRunBody, RunView } from "./schemas.ts";
import { guardServices, withinServiceBound } from "./service-guard.ts";

/** How often the server ends runs whose plan review is past its deadline (ms). */
const REVIEW_SWEEP_MS = 60_000;

/** Default report formats of a run created over HTTP: every format can then be downloaded. */
const DEFAULT_FORMATS = ["md", "html", "json"] as const;

/** Options of {@link createRunManager}. */
export interface RunManagerOptions {
  dossier: Dossier;
  /** Runs (and asks) under way at once; more are refused with 429. */
  maxRuns: number;
  /** The path prefix report links are built under (default `/v1`). */
  base?: string;
  /**
   * Runs go to this queue instead of running here: `dossier worker` processes execute them
   * (no limit of runs at once applies here; shutting the server down leaves them running).
   */
  queued?: QueuedResearch;
}

/** The server's runs. */
export interface RunManager {
  /** The run queue runs go to, or null when they run in this server. */
  readonly queued: QueuedResearch | null;
  /** Runs (and asks) at once in this server (when runs run here). */
  readonly maxRuns: number;
  /**
   * Starts a run and resolves with its handle once the request is checked (rejects with the
   * error when it is not, or with 429 over the limit).
   */
  start(body: CreateRunBody, options?: { signal?: AbortSignal; runId?: string }): Promise<ResearchHandle>;
  /**
   * Starts a run and resolves with its view once the request is checked. With an
   * `idempotencyKey`, the run the key already names is answered (`replayed`) instead of a new
   * one; CONFLICT when that run was asked with another question or strategy. 503 when the store
   * or the queue does not answer (nothing is created).
   */
  create(
    body: CreateRunBody,
    options?: { idempotencyKey?: string },
  ): Promise<{ run: RunView; replayed: boolean }>;
  /** Answers a question (a follow-up with `about`); `onEvent` sees the answering run's events. */
  ask(
    body: AskBody,
    signal?: AbortSignal,
    onEvent?: (event: DossierEvent) => void,
  ): Promise<Omit<AskResult, "research">>;
  /** Resumes an interrupted, cancelled or failed run; resolves with its handle once it is prepared. */
  resume(idOrPrefix: string, options?: { signal?: AbortSignal }): Promise<ResearchHandle>;
  /** Cancels a run here at once, or asks the process that runs it (a worker) to; a run awaiting review has its plan rejected. */
  cancel(idOrPrefix: string): Promise<{ runId: string; status: string }>;
  /** A run's plan review (see `RunsApi.plan`); NOT_FOUND when the run never stopped for one. */
  plan(idOrPrefix: string): Promise<PlanReviewView>;
  /**
   * Answers the review of a run awaiting it (see `RunsApi.review`): an approved or edited plan
   * resumes the run here or on a worker (its handle, tracked; 429 over the limit, checked before
   * anything changes); a rejected run ends cancelled (no handle).
   */
  review(idOrPrefix: string, answer: unknown): Promise<{ runId: string; handle: ResearchHandle | null }>;
  view(idOrPrefix: string): Promise<RunView>;
  list(options?: { limit?: number; status?: RunRecord["status"] }): Promise<RunView[]>;
  /** The handle of a run under way in this process. */
  handle(runId: string): ResearchHandle | undefined;
  /** Run ids under way that this server started. */
  active(): string[];
  /** Cancels every run this server started and waits until each is recorded. */
  cancelAll(reason: string): Promise<void>;
}

/** True for the handle of a run that a worker executes. */
export function isQueued(handle: ResearchHandle): boolean {
  return (handle as { remote?: boolean }).remote === true;
}

/** Builds the run manager of a server. */
export function createRunManager(options: RunManagerOptions): RunManager {
  const { dossier, maxRuns } = options;
  const base = options.base ?? "/v1";
  const running = new Map<string, ResearchHandle>();
  const pending = new Map<string, { query: string; strategy: string; createdAt: string }>();
  let asks = 0;
  let reserved = 0;

  const inUse = () => running.size + asks + reserved;
  const reserve = () => {
    if (options.queued) {
      reserved++;
      return;
    }
    if (inUse() >= maxRuns) {
      throw new ApiError(
        429,
        "RATE_LIMITED",
        `too many runs at once: ${inUse()} of ${maxRuns} are under way on this server; wait for one to end or cancel one`,
      );
    }
    reserved++;
  };
  const track = (handle: ResearchHandle) => {
    running.set(handle.runId, handle);
    const release = () => {
      running.delete(handle.runId);
      pending.delete(handle.runId);
    };
    handle.done.then(release, release);
  };
  const resolveId = async (idOrPrefix: string) => {
    if (running.has(idOrPrefix)) return idOrPrefix;
    return dossier.store.runs.resolveId(idOrPrefix);
  };
  const viewOfRecord = async (record: RunRecord): Promise<RunView> => {
    const formats =
      record.status === "running" || record.status === "queued"
        ? []
        : await reportFormats(dossier.runs, record.id);
    return {
      ...record,
      active: running.has(record.id) || dossier.runs.handle(record.id) !== undefined,
      reports: Object.fromEntries(formats.map((f) => [f, `${base}/runs/${record.id}/report/${f}`])),
    };
  };
  // Reviews left unanswered past their deadline end their runs even when nobody reads them (runtime/plan-review.ts).
  const reviewSweep = setInterval(
    () => void expireDueReviews({ store: dossier.store, clock: dossier.clock }).catch(() => {}),
    REVIEW_SWEEP_MS,
  );
  reviewSweep.unref();
  const manager: RunManager = {
    queued: options.queued ?? null,
    maxRuns,
    async start(body, startOptions = {}) {
      // Nothing is stored or queued while a service the run needs does not answer.
      await guardServices(dossier.store, options.queued ?? null);
      reserve();
      let handle: ResearchHandle;
      let onPrepared!: () => void;
      const prepared = new Promise<void>((resolve) => {
        onPrepared = resolve;
      });
      try {
        const { question, ...rest } = body;
        const request = {
          ...rest,
          formats: body.formats ?? [...DEFAULT_FORMATS],
          ...(startOptions.signal ? { signal: startOptions.signal } : {}),
          ...(startOptions.runId ? { runId: startOptions.runId } : {}),
        };
        if (options.queued) {
          const queuedHandle = options.queued.research(question, request);
          // Checked and queued is as far as this server prepares it.
          void queuedHandle.enqueued.then(
            () => onPrepared(),
            () => {},
          );
          handle = queuedHandle;
        } else {
          handle = dossier.research(question, { ...request, onPrepared: () => onPrepared() });
        }
      } finally {
        reserved--;
      }
      pending.set(handle.runId, {
        query: body.question,
        strategy: body.strategy ?? "",
        createdAt: new Date(dossier.clock.now()).toISOString(),
      });
      track(handle);
      await Promise.race([prepared, handle.done]);
      return handle;
    },
    async create(body, createOptions = {}) {
      if (createOptions.idempotencyKey === undefined) {
        const handle = await manager.start(body);
        return { run: await manager.view(handle.runId), replayed: false };
      }
      const runId = idempotentRunId(createOptions.idempotencyKey);
      const replay = async () => {
        const record = await withinServiceBound(dossier.store.runs.get(runId), "the store");
        if (!record) return null;
        if (record.query !== body.question || (body.strategy && body.strategy !== record.strategy))
          throw new ApiError(
            409,
            "CONFLICT",
            `Idempotency-Key already names run ${runId}, asked with another question or strategy`,
          );
        return { run: await viewOfRecord(record), replayed: true };
      };
      const earlier = await replay();
      if (earlier) return earlier;
      try {
        const handle = await manager.start(body, { runId });
        return { run: await manager.view(handle.runId), replayed: false };
      } catch (error) {
        // Another request with the same key created the run meanwhile.
        const raced = await replay().catch(() => null);
        if (raced) return raced;
        throw error;
      }
    },
    async ask(body, signal, onEvent) {
      if (typeof dossier.ask !== "function") {
        throw new ApiError(501, "NOT_IMPLEMENTED", "ask is not available in this version of Dossier");
      }
      reserve();
      reserved--;
      asks++;
      try {
        const { question, ...rest } = body;
        const { research: _research, ...answer } = await dossier.ask(question, {
          ...rest,
          ...(signal ? { signal } : {}),
          ...(onEvent ? { onEvent } : {}),
        });
        return answer;
      } finally {
        asks--;
      }
    },
    async resume(idOrPrefix, resumeOptions = {}) {
      const runId = await resolveId(idOrPrefix);
      if (running.has(runId) || dossier.runs.handle(runId)) {
        throw new ApiError(409, "CONFLICT", `run ${runId} is running; it can be resumed once it has ended`);
      }
      await guardServices(dossier.store, options.queued ?? null);
      reserve();
      let handle: ResearchHandle;
      let onPrepared!: () => void;
      const prepared = new Promise<void>((resolve) => {
        onPrepared = resolve;
      });
      try {
        const signal = resumeOptions.signal ? { signal: resumeOptions.signal } : {};
        if (options.queued) {
          const queuedHandle = options.queued.runs.resume(runId, signal);
          void queuedHandle.enqueued.then(
            () => onPrepared(),
            () => {},
          );
          handle = queuedHandle;
        } else {
          handle = dossier.runs.resume(runId, { onPrepared: () => onPrepared(), ...signal });
        }
      } finally {
        reserved--;
      }
      track(handle);
      await Promise.race([prepared, handle.done]);
      return handle;
    },
    async cancel(idOrPrefix) {
      const runId = await resolveId(idOrPrefix);
      if ((await dossier.store.runs.get(runId))?.status === "awaiting-review") {
        // Held by no process: cancelling it rejects its plan.
        await dossier.runs.requestCancel(runId, "cancelled over the HTTP API");
        return { runId, status: (await dossier.runs.get(runId)).status };
      }
      const tracked = running.get(runId);
      if (tracked && isQueued(tracked)) {
        // A queued run is withdrawn, or its worker is asked to cancel it.
        tracked.cancel("cancelled over the HTTP API");
        return { runId, status: "cancelling" };
      }
      // Here at once; in another process (a worker) at its next heartbeat; a queued run at once.
      const reason = "cancelled over the HTTP API";
      if (
        options.queued
          ? await options.queued.runs.cancel(runId, reason)
          : await dossier.runs.requestCancel(runId, reason)
      )
        return { runId, status: "cancelling" };
      const record = await dossier.runs.get(runId);
      throw new ApiError(409, "CONFLICT", `run ${runId} is not running (it is ${record.status})`);
    },
    async plan(idOrPrefix) {
      const runId = await resolveId(idOrPrefix);
      const review = await dossier.runs.plan(runId);
      if (!review) {
        throw new DossierError(
          "NOT_FOUND",
          `run ${runId} has no plan review: it was not started with reviewPlan, or has not reached its plan yet`,
          { details: { runId } },
        );
      }
      return review;
    },
    async review(idOrPrefix, answer) {
      const runId = await resolveId(idOrPrefix);
      const parsed = parsePlanAnswer(answer);
      await guardServices(dossier.store, options.queued ?? null);
      // An approved plan starts a run: refused over the limit before the answer is recorded.
      const starts = parsed.action !== "reject";
      if (starts) reserve();
      try {
        const outcome = options.queued
          ? await options.queued.runs.review(runId, parsed)
          : await dossier.runs.review(runId, parsed);
        if (outcome.handle) track(outcome.handle);
        return { runId, handle: outcome.handle };
      } finally {
        if (starts) reserved--;
      }
    },
    async view(idOrPrefix) {
      const runId = await resolveId(idOrPrefix);
      const stored = await dossier.store.runs.get(runId);
      // A run awaiting review past its deadline is ended (REVIEW_TIMEOUT) as it is read.
      const record = stored?.status === "awaiting-review" ? await dossier.runs.get(runId) : stored;
      if (record) return viewOfRecord(record);
      const queued = pending.get(runId);
      if (!queued || !running.has(runId)) throw new DossierError("NOT_FOUND", `no run "${idOrPrefix}"`);
      return {
        id: runId,
        query: queued.query,
        strategy: queued.strategy,
        options: {},
        status: "queued",
        createdAt: queued.createdAt,
        updatedAt: queued.createdAt,
        finishedAt: null,
        stopReason: null,
        usage: null,
        error: null,
        owner: null,
        heartbeatAt: null,
        active: true,
        reports: {},
      };
    },
    async list(listOptions) {
      return Promise.all((await dossier.runs.list(listOptions)).map(viewOfRecord));
    },
    handle: (runId) => running.get(runId) ?? dossier.runs.handle(runId),
    active: () => [...running.keys()],
    async cancelAll(reason) {
      clearInterval(reviewSweep);
      // Runs on workers go on without this server.
      const handles = [...running.values()].filter((h) => !isQueued(h));
      for (const handle of handles) handle.cancel(reason);
      await Promise.allSettled(handles.map((h) => h.done));
    },
  };
  return manager;
}
