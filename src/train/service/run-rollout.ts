/**
 * One rollout's run, from its start to an end the batch can use, as `dossier train rollouts`
 * treats its rollouts: a completed run is a sample; a run that failed by the agent's behaviour
 * ({@link AGENT_FAILURES}) is a sample too (its reward is usually 0, and leaving it out would
 * shrink its group); a run that failed outside the agent (the policy endpoint unreachable, a
 * timeout, the store) is taken up again from its journal a bounded number of times, waiting
 * longer each time, and is an `error` after that. A run that could not start (its request
 * refused where it ran) is an `error` at once; a cancelled one is `cancelled`.
 */

import { toDossierError } from "../../core/errors.ts";
import type { DossierEvent } from "../../core/events.ts";
import type { Dossier } from "../../runtime/dossier.ts";
import type { ResearchOptions, ResearchResult } from "../../runtime/research-handle.ts";
import { AGENT_FAILURES } from "../rollouts/run-rollouts.ts";
import type { RolloutExecutor } from "./rollout-executor.ts";

/** How a rollout's run ended. */
export interface RolloutOutcome {
  status: "completed" | "failed" | "error" | "cancelled";
  /** The run's last result, when one settled. */
  result: ResearchResult | null;
  error: { code: string; message: string } | null;
  /** Times the run was taken up again after a failure outside the agent. */
  retries: number;
}

/** Input of {@link runRollout}. */
export interface RunRolloutInput {
  executor: RolloutExecutor;
  /** The policy's Dossier. */
  dossier: Dossier;
  question: string;
  /** The run's options; `runId` is set. */
  options: ResearchOptions & { runId: string };
  signal: AbortSignal;
  /** Takings-up after a failure outside the agent (default 2). */
  infraRetries?: number;
  /** Wait before taking-up k (1-based): `retryDelayMs · 2^(k−1)` (default 2000 ms). */
  retryDelayMs?: number;
  /** Called once, when the run's first `run-start` is seen. */
  onStarted?: () => void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });

/** Runs one rollout to an end (see the module comment). */
export async function runRollout(input: RunRolloutInput): Promise<RolloutOutcome> {
  const { executor, dossier, signal } = input;
  const runId = input.options.runId;
  const limit = input.infraRetries ?? 2;
  let started = false;
  const onEvent = (event: DossierEvent) => {
    if (event.type !== "run-start" || started) return;
    started = true;
    input.onStarted?.();
  };
  let handle = executor.research(dossier, input.question, { ...input.options, signal, onEvent });
  for (let retries = 0; ; retries++) {
    let result: ResearchResult;
    try {
      result = await handle.done;
    } catch (error) {
      const e = toDossierError(error);
      const status = signal.aborted || e.code === "CANCELLED" ? "cancelled" : "error";
      return { status, result: null, error: { code: e.code, message: e.message }, retries };
    }
    const code = result.error?.code ?? "";
    if (result.status === "completed") return { status: "completed", result, error: null, retries };
    const error = { code: code || "INTERNAL", message: result.error?.message ?? result.stopReason };
    if (result.status === "failed" && AGENT_FAILURES.has(code))
      return { status: "failed", result, error, retries };
    if (signal.aborted || result.status === "cancelled")
      return { status: "cancelled", result, error, retries };
    if (retries >= limit) return { status: "error", result, error, retries };
    await sleep((input.retryDelayMs ?? 2000) * 2 ** retries, signal);
    if (signal.aborted) return { status: "cancelled", result, error, retries };
    handle = executor.resume(dossier, runId, { signal, onEvent });
  }
}
