/**
 * Research through the run queue, in the shape a `Dossier` offers it (`research`, and the stored
 * runs with `resume`), so `dossier batch` and the server enqueue runs instead of executing them:
 * the request is checked here (a bad one is refused before anything is queued), the job carries
 * it as JSON, and the handle follows the run in the shared store.
 */

import { isAbsolute, resolve } from "node:path";
import { DossierError } from "../core/errors.ts";
import type { RunRecord, RunStatus } from "../core/run.ts";
import type { Dossier } from "../runtime/dossier.ts";
import type { ResearchOptions, ResumeOptions } from "../runtime/research-handle.ts";
import { researchRequestSchema } from "../runtime/research-request.ts";
import { createRunId } from "../runtime/run-id.ts";
import { type QueuedHandle, queuedHandle } from "./queued-handle.ts";
import type { RunQueue } from "./run-queue.ts";

/** Research that runs on workers. */
export interface QueuedResearch {
  /** Enqueues a research run; the handle's `done` rejects with INPUT_INVALID for a bad request. */
  research(question: string, options?: ResearchOptions): QueuedHandle;
  runs: {
    list(options?: { limit?: number; status?: RunStatus }): Promise<RunRecord[]>;
    /** Enqueues the resume of a stored run (a full id). */
    resume(runId: string, options?: ResumeOptions): QueuedHandle;
  };
}

/** Options of {@link queuedResearch}. */
export interface QueuedResearchOptions {
  /** Relative `docs` and `out` paths resolve against this (default `process.cwd()`). */
  cwd?: string;
  /** How often handles read the store (ms). */
  pollMs?: number;
}

/** Research for `dossier` that `queue`'s workers execute. */
export function queuedResearch(
  dossier: Dossier,
  queue: RunQueue,
  options: QueuedResearchOptions = {},
): QueuedResearch {
  const cwd = options.cwd ?? process.cwd();
  const now = () => new Date(dossier.clock.now()).toISOString();
  const common = {
    queue,
    store: dossier.store,
    clock: dossier.clock,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
  };
  return {
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
        return queue.enqueue({ kind: "research", runId, question, options: json, enqueuedAt: now() });
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
      resume(runId, resumeOptions = {}) {
        const enqueued = queue.enqueue({ kind: "resume", runId, enqueuedAt: now() });
        enqueued.catch(() => {});
        return queuedHandle(runId, {
          ...common,
          enqueued,
          ...(resumeOptions.signal ? { signal: resumeOptions.signal } : {}),
          ...(resumeOptions.onEvent ? { onEvent: resumeOptions.onEvent } : {}),
        });
      },
    },
  };
}
