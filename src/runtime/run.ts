/**
 * Running a strategy as a recorded run: creates the run record, builds the context, emits
 * run-start and run-end, and records how the run ended — completed, failed or cancelled, or
 * stopped after its plan for review (`awaiting-review`) — with its stop reason and usage.
 * Cancelling stops new model and tool calls at once and aborts calls in flight. A model that
 * cannot be used, a store that cannot write and a shared service that stays away past its bound
 * (infrastructure-watch.ts) end the run at once, as failed.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { BudgetLedger, exceededLimit } from "../core/budget.ts";
import { type Clock, isoDate, systemClock } from "../core/clock.ts";
import { DossierError, isDossierError, toDossierError } from "../core/errors.ts";
import { dossierEventSchema, type EventInput } from "../core/events.ts";
import { EvidenceRegistry, type RegistrySnapshot } from "../core/evidence-registry.ts";
import { createSequentialIds, type IdGenerator } from "../core/ids.ts";
import type { StepJournal } from "../core/journal.ts";
import type { RunRecord } from "../core/run.ts";
import { type RunOptionsInput, runOptionsSchema } from "../core/run-options.ts";
import { addCallUsage, type CallUsage, type ModelPrice, type UsageTotals } from "../core/usage.ts";
import { contextMethods, type RunContext } from "../kit/run-context.ts";
import { CallRecorder } from "../llm/call-recorder.ts";
import type { LlmClientOptions } from "../llm/client.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import { tokenCaptureOf } from "../llm/token-capture.ts";
import { openRunWriter, type RunWriter } from "../store/run-writer.ts";
import type { Store } from "../store/types.ts";
import { startRunTrace } from "../telemetry/lazy.ts";
import type { RunTrace } from "../telemetry/run-trace.ts";
import type { TelemetrySettings } from "../telemetry/settings.ts";
import { type EarlierCalls, lostCallUsage, usageOfCalls } from "./earlier-usage.ts";
import { GuardedLlmClient } from "./guarded-llm.ts";
import { watchInfrastructure } from "./infrastructure-watch.ts";
import { didWorkError, ToolTally } from "./run-did-work.ts";
import { createRunId } from "./run-id.ts";
import { currentOwner, runHeartbeatMs } from "./run-liveness.ts";

/** What a strategy returns. */
export interface StrategyOutcome {
  /** Why the strategy stopped (e.g. `completed`, `budget:tokens`, `no-gaps`). Default `completed`. */
  stopReason?: string;
}

/** A strategy: the research procedure run inside a context. */
export type Strategy<T extends StrategyOutcome = StrategyOutcome> = (ctx: RunContext) => Promise<T>;

/** Options of {@link startRun}. */
export interface StartRunOptions<T extends StrategyOutcome> {
  store: Store;
  registry: ModelRegistry;
  query: string;
  options: RunOptionsInput;
  strategy: Strategy<T>;
  clock?: Clock;
  /** A fixed run id (default: a new one). */
  runId?: string;
  ids?: IdGenerator;
  /** How often the run's heartbeat is written and cancellation requests are read (default: runHeartbeatMs). */
  heartbeatMs?: number;
  /** An outside signal that cancels the run when it aborts. */
  signal?: AbortSignal;
  /** Passed to the LLM client (retry policy, timeouts, jitter). */
  llm?: Pick<LlmClientOptions, "retry" | "timeoutMs" | "random" | "defaultMaxOutputTokens" | "sampling">;
  /** The model endpoint, named (without secrets) when the model cannot be reached. */
  modelEndpoint?: string;
  /**
   * Sends the run's OpenTelemetry spans (run, model calls, tool calls) here; none without it,
   * and the OpenTelemetry modules are then never loaded (telemetry/settings.ts).
   */
  telemetry?: TelemetrySettings | null;
  /**
   * Takes up a run the caller has already claimed (`RunStore.claim`) instead of creating one:
   * its event log continues, its journal replays, and the earlier wall time counts.
   */
  resume?: {
    previousStatus: string;
    previousWallMs: number;
    journaledSteps: number;
    /** What earlier attempts registered: sources and passages found again keep their ids. */
    earlierEvidence?: RegistrySnapshot;
    /** The model calls earlier attempts paid for: the run's usage and budget count them. */
    earlierCalls?: EarlierCalls;
  };
}

/** How a run ended. */
export interface RunResult<T extends StrategyOutcome> {
  record: RunRecord;
  /** The strategy's outcome when it returned. */
  outcome: T | null;
  error: DossierError | null;
}

/** A run under way. */
export interface RunHandle<T extends StrategyOutcome> {
  runId: string;
  /** Cancels the run: no new calls start, calls in flight are aborted. */
  cancel(reason?: string): void;
  /**
   * Settles when the run has ended and been recorded. Rejects only when the run could not be
   * recorded at all (the store refused to create it, or cannot be reached).
   */
  done: Promise<RunResult<T>>;
}

/** Starts a run. */
export function startRun<T extends StrategyOutcome>(opts: StartRunOptions<T>): RunHandle<T> {
  const clock = opts.clock ?? systemClock;
  const now = () => new Date(clock.now()).toISOString();
  const runId = opts.runId ?? createRunId(clock.now());
  const options = runOptionsSchema.parse(opts.options);
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(opts.signal?.reason ?? "cancelled");
  if (opts.signal?.aborted) onOuterAbort();
  else opts.signal?.addEventListener("abort", onOuterAbort, { once: true });

  const owner = currentOwner();
  let fatal: DossierError | null = null;
  /** Ends the run at once, as failed with `error` (a model that cannot be used, a store that cannot write). */
  const failRun = (error: DossierError) => {
    if (fatal || controller.signal.aborted) return;
    fatal = error;
    controller.abort(error);
  };
  // Set before the strategy starts (the run record and its journal are read first).
  let writer: RunWriter | null = null;
  const scopes = new AsyncLocalStorage<string>();
  const tools = new ToolTally();
  // Set before run-start when the run has telemetry; sees every event after it.
  let runTrace: RunTrace | null = null;
  // Journal keys replayed by this attempt (their earlier answers are counted by the replay).
  const replayedKeys = new Set<string>();
  const emit = (event: EventInput) => {
    tools.see(event);
    if (event.type === "llm-end" && event.replayed) replayedKeys.add(event.key);
    const scope = scopes.getStore();
    const stored = writer!.emit((scope ? { ...event, scope } : event) as EventInput, now());
    const check = dossierEventSchema.safeParse(stored);
    if (!check.success) throw new Error(`invalid ${event.type} event: ${check.error.message}`);
    try {
      runTrace?.observe(event);
    } catch {
      // Telemetry never fails a run.
    }
    return stored;
  };

  // A resumed run starts from what its earlier attempts paid for and its journal will not replay.
  const earlier = opts.resume?.earlierCalls ?? { unjournaled: [], journaled: {}, lost: [] };
  const priceOf = (role: string, model: string): ModelPrice | null => {
    try {
      const resolved = opts.registry.forRole(role as Parameters<ModelRegistry["forRole"]>[0]);
      return resolved.name === model ? resolved.price : null;
    } catch {
      return null;
    }
  };
  const carried = [
    ...earlier.unjournaled,
    ...earlier.lost.map((call) => lostCallUsage(call, priceOf(call.role, call.model))),
  ];
  let usage: UsageTotals = usageOfCalls(carried);
  const ids = opts.ids ?? createSequentialIds();
  const budget = new BudgetLedger({
    limits: options.budget,
    clock,
    ...(opts.resume ? { used: { ...usedBy(carried), wallMs: opts.resume.previousWallMs } } : {}),
  });
  const journal: StepJournal = {
    get: (key) => writer!.journal.get(key),
    put: (key, entry) => writer!.journal.put(key, entry),
  };
  // `recordCalls` and `seed` are run options (stored with the run, so a resumed run keeps them).
  const { recordCalls, seed } = options as { recordCalls?: unknown; seed?: unknown };
  const tokens = recordCalls === true ? tokenCaptureOf(options) : undefined;
  const llm = new GuardedLlmClient(
    {
      ...opts.llm,
      ...(recordCalls === true
        ? { recorder: new CallRecorder({ emit, scope: () => scopes.getStore() }) }
        : {}),
      ...(Number.isSafeInteger(seed) ? { seed: seed as number } : {}),
      ...(tokens ? { tokens } : {}),
      ...(opts.telemetry ? { telemetry: (call) => runTrace?.modelCall(call) } : {}),
      registry: opts.registry,
      budget,
      emit,
      journal,
      clock,
      signal: controller.signal,
      ids,
      onUsage: (call) => {
        usage = addCallUsage(usage, call);
      },
    },
    {
      endpoint: opts.modelEndpoint,
      // A model that cannot be used ends the run at once, as failed.
      onUnreachable: failRun,
    },
  );
  const ctx: RunContext = {
    runId,
    query: opts.query,
    options,
    currentDate: options.currentDate ?? isoDate(clock.now()),
    clock,
    ids,
    signal: controller.signal,
    budget,
    llm,
    // A resumed run gives each source and passage found again the id it had before.
    evidence: new EvidenceRegistry(ids, opts.resume?.earlierEvidence),
    journal,
    emit,
    inScope: (scope, fn) => scopes.run(scope, fn),
    usage: () => ({ ...usage, toolCalls: budget.snapshot().used.toolCalls }),
    ...contextMethods(llm),
  };

  const done = (async (): Promise<RunResult<T>> => {
    if (!opts.resume) {
      await opts.store.runs.create({
        id: runId,
        query: opts.query,
        strategy: options.strategy,
        options,
        createdAt: now(),
        owner,
      });
    }
    writer = await openRunWriter(opts.store, runId, { onFailure: failRun });
    let telemetryError: string | null = null;
    if (opts.telemetry) {
      runTrace = await startRunTrace(opts.telemetry, {
        runId,
        strategy: options.strategy,
        query: opts.query,
        resumed: Boolean(opts.resume),
      }).catch((error: unknown) => {
        telemetryError = error instanceof Error ? error.message : String(error);
        return null;
      });
    }
    // The heartbeat says the run is alive, and brings a cancellation asked for by any process;
    // a run another process has taken over stops writing at once.
    let ending = false;
    let leaseLost = false;
    const heartbeat = setInterval(() => {
      opts.store.runs.heartbeat(runId, owner, now()).then(
        (answer) => {
          if (ending) return;
          if (!answer.held) {
            leaseLost = true;
            writer?.halt();
            failRun(
              new DossierError("CONFLICT", `run ${runId} was taken over by another process`, {
                details: { runId },
              }),
            );
          } else if (answer.cancelRequested && !controller.signal.aborted) {
            controller.abort(answer.cancelRequested);
          }
        },
        () => {
          // A missed heartbeat only makes the run look idle for a while.
        },
      );
    }, opts.heartbeatMs ?? runHeartbeatMs(owner.leaseMs));
    heartbeat.unref();
    let outcome: T | null = null;
    let error: DossierError | null = null;
    try {
      if (opts.resume) {
        const { earlierEvidence: _, earlierCalls: __, ...resume } = opts.resume;
        const earlierLlmCalls = carried.length + Object.keys(earlier.journaled).length;
        emit({ type: "run-resume", ...resume, earlierLlmCalls, lostCalls: earlier.lost.length });
      } else emit({ type: "run-start", query: opts.query, strategy: options.strategy, options });
      if (telemetryError) {
        emit({
          type: "warning",
          code: "TELEMETRY_UNAVAILABLE",
          message: `no OpenTelemetry spans for this run: ${telemetryError}`.slice(0, 500),
        });
      }
      // A shared service that stays away past its bound (the provider limiter) fails the run at
      // once, as a model that cannot be used does: no fallback is written for a call never made.
      outcome = await watchInfrastructure(
        {
          waiting: (notice) => {
            if (!controller.signal.aborted) emit({ type: "warning", ...notice });
          },
          failed: failRun,
        },
        () => opts.strategy(ctx),
      );
    } catch (caught) {
      error = toDossierError(caught);
    } finally {
      opts.signal?.removeEventListener("abort", onOuterAbort);
      ending = true;
      clearInterval(heartbeat);
    }
    if (fatal) error = fatal;
    // Stopped after its plan for the user's review (core/plan-review-point.ts): neither an end
    // nor a failure; an answer to the review takes the run up again.
    const paused = isDossierError(error, "AWAITING_REVIEW") && !controller.signal.aborted;
    if (paused) error = null;
    // A run is completed only when it did its work (run-did-work.ts): no budget spent before
    // its first model call, no tool calls that gathered no evidence.
    if (!paused && !error && !controller.signal.aborted && outcome) {
      error = didWorkError({
        stopReason: outcome.stopReason,
        budget: budget.snapshot(),
        evidence: ctx.evidence.evidence().length,
        tools,
      });
    }
    const cancelled = controller.signal.aborted && !fatal;
    const status = paused ? "awaiting-review" : cancelled ? "cancelled" : error ? "failed" : "completed";
    const limit = exceededLimit(error);
    const stopReason = paused
      ? "awaiting-review"
      : cancelled
        ? `cancelled: ${reasonText(controller.signal.reason)}`
        : limit
          ? `budget:${limit}`
          : error
            ? `error: ${error.code}`
            : (outcome?.stopReason ?? "completed");
    // Earlier answers the journal holds but this attempt did not replay were paid for all the same.
    let totals = ctx.usage();
    for (const [key, call] of Object.entries(earlier.journaled)) {
      if (!replayedKeys.has(key)) totals = addCallUsage(totals, call);
    }
    const errorShape = error && !cancelled ? { code: error.code, message: error.message } : null;
    try {
      emit({
        type: "run-end",
        status,
        stopReason,
        usage: totals,
        ...(errorShape ? { error: { ...errorShape, retryable: error!.retryable } } : {}),
      });
    } catch {
      // The run is recorded below even if the log cannot take the last event.
    }
    await writer.flush().catch(() => {
      // The record below still says how the run ended.
    });
    await runTrace?.end();
    const record = leaseLost
      ? ((await opts.store.runs.get(runId)) as RunRecord)
      : await opts.store.runs.update(runId, {
          status,
          updatedAt: now(),
          finishedAt: paused ? null : now(),
          stopReason,
          usage: totals,
          error: errorShape,
        });
    return { record, outcome: cancelled ? null : outcome, error: cancelled ? null : error };
  })();

  return {
    runId,
    cancel: (reason = "cancelled by user") => controller.abort(reason),
    done,
  };
}

/** The budget's figures of `calls` (unknown token counts and costs counted as such). */
function usedBy(calls: readonly CallUsage[]) {
  const known = (n: number | null) => n ?? 0;
  return {
    tokens: calls.reduce((sum, c) => sum + known(c.inputTokens) + known(c.outputTokens), 0),
    toolCalls: 0,
    costUsd: calls.reduce((sum, c) => sum + known(c.costUsd), 0),
    iterations: 0,
    llmCalls: calls.length,
    unknownTokenCalls: calls.filter((c) => c.inputTokens === null || c.outputTokens === null).length,
    unknownCostCalls: calls.filter((c) => c.costUsd === null).length,
  };
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return typeof reason === "string" ? reason : "cancelled";
}
