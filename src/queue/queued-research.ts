/**
 * Research through the run queue, in the shape a `Dossier` offers it (`research`, and the stored
 * runs with `resume`), so `dossier batch` and the server enqueue runs instead of executing them:
 * the request is checked here (a bad one is refused before anything is queued), the run is stored
 * `queued` (listed and cancellable before a worker takes it), the job carries the request as
 * JSON, and the handle follows the run in the shared store.
 */

import { isAbsolute, resolve } from "node:path";
import { DossierError, toDossierError } from "../core/errors.ts";
import { parsePlanAnswer } from "../core/plan-edit.ts";
import type { RunRecord, RunStatus } from "../core/run.ts";
import type { Dossier } from "../runtime/dossier.ts";
import { answerPlanReview, type ReviewAnswered } from "../runtime/plan-review.ts";
import { estimateInput } from "../runtime/research-estimate.ts";
import type { ResearchOptions, ResumeOptions } from "../runtime/research-handle.ts";
import { researchRequestSchema } from "../runtime/research-request.ts";
import { checkResumable } from "../runtime/resume.ts";
import { createRunId } from "../runtime/run-id.ts";
import { webhooksForRun } from "../webhooks/run-webhooks.ts";
import { type QueuedHandle, queuedHandle } from "./queued-handle.ts";
import type { QueueStatus, RunQueue } from "./run-queue.ts";
import { servicesReady } from "./services-ready.ts";

/** Research that runs on workers. */
export interface QueuedResearch {
  /** The queue's URL without its password. */
  readonly queueDisplay: string;
  /** Queue depth, active jobs and the live workers with their load. */
  status(): Promise<QueueStatus>;
  /** Resolves once Redis and the store both answer within `timeoutMs`; STORE_ERROR naming the one that did not. */
  ready(timeoutMs: number): Promise<void>;
  /** Enqueues a research run; the handle's `done` rejects with INPUT_INVALID for a bad request. */
  research(question: string, options?: ResearchOptions): QueuedHandle;
  /**
   * Stops following every run of these handles (a command leaving without waiting for its runs,
   * which go on on their workers): their `done` no longer settles and nothing more is read.
   */
  detach(): void;
  runs: {
    list(options?: { limit?: number; status?: RunStatus }): Promise<RunRecord[]>;
    /** Enqueues the resume of a stored run (a full id). */
    resume(runId: string, options?: ResumeOptions): QueuedHandle;
    /**
     * Cancels a run enqueued by any process (a full id): a queued run is recorded cancelled and
     * its job removed; a running run's worker is asked through the store. False when it is neither.
     */
    cancel(runId: string, reason: string): Promise<boolean>;
    /**
     * Answers the review of a run awaiting it (a full id; see `RunsApi.review`): an approved or
     * edited plan is recorded and the run's resume enqueued for a worker (the handle); a rejected
     * run ends cancelled (no handle). No worker holds a job while a run awaits its review.
     */
    review(
      runId: string,
      answer: unknown,
      options?: ResumeOptions,
    ): Promise<ReviewAnswered & { handle: QueuedHandle | null }>;
  };
}

/** Options of {@link queuedResearch}. */
export interface QueuedResearchOptions {
  /** Relative `docs` and `out` paths resolve against this (default `process.cwd()`). */
  cwd?: string;
  /** How often handles read the store for events (ms). */
  pollMs?: number;
  /** How often handles read the run's record and the queue to follow a run (ms; see queued-handle.ts). */
  followMs?: number;
}

/** Research for `dossier` that `queue`'s workers execute. */
export function queuedResearch(
  dossier: Dossier,
  queue: RunQueue,
  options: QueuedResearchOptions = {},
): QueuedResearch {
  const cwd = options.cwd ?? process.cwd();
  const now = () => new Date(dossier.clock.now()).toISOString();
  const detachment = new AbortController();
  const common = {
    queue,
    store: dossier.store,
    clock: dossier.clock,
    detached: detachment.signal,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.followMs ? { followMs: options.followMs } : {}),
  };
  return {
    queueDisplay: queue.target.display,
    status: () => queue.status(),
    ready: (timeoutMs) => servicesReady(dossier.store, queue, timeoutMs),
    detach: () => detachment.abort(),
    research(question, researchOptions = {}) {
      const {
        signal,
        onEvent,
        onPrepared: _p,
        onIndexed: _i,
        clarify: _c,
        runId: fixedId,
        ...request
      } = researchOptions;
      const runId = fixedId ?? createRunId(dossier.clock.now());
      const absolute = (path: string | undefined) =>
        path === undefined || isAbsolute(path) ? path : resolve(cwd, path);
      const json = JSON.parse(
        JSON.stringify({ ...request, docs: absolute(request.docs), out: absolute(request.out) }),
      ) as Record<string, unknown>;
      const enqueued = (async () => {
        const parsed = researchRequestSchema.safeParse({ ...json, query: question });
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          throw new DossierError("INPUT_INVALID", `${issue.path.join(".") || "request"}: ${issue.message}`);
        }
        // The strategy it will run (as this process's configuration sees it; the worker records
        // its own when it starts the run), checked with its options before anything is stored.
        const { strategy } = estimateInput(question, request, {
          config: dossier.config,
          registry: dossier.models,
          strategies: dossier.strategies,
        });
        // Its webhooks (the request's and this process's configured ones), checked before anything
        // is stored; they travel with the request, so a run cancelled while queued is announced too.
        const webhooks = await webhooksForRun(parsed.data.webhooks, dossier.config);
        if (webhooks.length) json.webhooks = webhooks;
        const enqueuedAt = now();
        // The run is stored queued first, so it is listed (and can be cancelled) from now on.
        await dossier.store.runs.create({
          id: runId,
          query: question,
          strategy: strategy.name,
          options: { ...json, strategy: strategy.name },
          createdAt: enqueuedAt,
          queued: true,
        });
        try {
          return await queue.enqueue({ kind: "research", runId, question, options: json, enqueuedAt });
        } catch (error) {
          const e = toDossierError(error);
          await dossier.store.runs
            .update(runId, {
              status: "failed",
              updatedAt: now(),
              finishedAt: now(),
              stopReason: `error: ${e.code}`,
              error: { code: e.code, message: e.message },
            })
            .catch(() => {});
          throw e;
        }
      })();
      enqueued.catch(() => {});
      return queuedHandle(runId, {
        ...common,
        enqueued,
        ...(signal ? { signal } : {}),
        ...(onEvent ? { onEvent } : {}),
      });
    },
    runs: {
      list: (listOptions) => dossier.runs.list(listOptions),
      async cancel(runId, reason) {
        if (!(await dossier.store.runs.requestCancel(runId, reason, now()))) return false;
        // A new run's job has the run's id; a job a worker has taken stays (it skips the run).
        if ((await dossier.store.runs.get(runId))?.status === "cancelled")
          await queue.withdraw(runId).catch(() => false);
        return true;
      },
      resume(runId, resumeOptions = {}) {
        let since: string | undefined;
        const enqueued = (async () => {
          // Checked as a resume in this process is (NOT_FOUND, CONFLICT with the same messages).
          const record = await checkResumable(runId, { store: dossier.store, clock: dossier.clock });
          since = record.updatedAt;
          return queue.enqueue({ kind: "resume", runId, enqueuedAt: now() });
        })();
        enqueued.catch(() => {});
        return queuedHandle(runId, {
          ...common,
          enqueued,
          since: () => since,
          ...(resumeOptions.signal ? { signal: resumeOptions.signal } : {}),
          ...(resumeOptions.onEvent ? { onEvent: resumeOptions.onEvent } : {}),
        });
      },
      async review(runId, answer, reviewOptions = {}) {
        const parsed = parsePlanAnswer(answer);
        // The worker that takes the resume prepares the run (its models and tools are its own).
        const answered = await answerPlanReview(
          { store: dossier.store, clock: dossier.clock },
          runId,
          parsed,
        );
        return { ...answered, handle: parsed.action === "reject" ? null : this.resume(runId, reviewOptions) };
      },
    },
  };
}
