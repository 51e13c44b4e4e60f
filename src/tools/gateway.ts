/**
 * The ToolGateway: the one place every external call goes through. Per provider it applies a
 * concurrency limit and a rate limit, a timeout, retries with backoff and jitter that honour
 * Retry-After, and a circuit breaker; it caches results in the store, journals them for
 * resume, counts them against the budget, records tool-start / tool-end events and metrics —
 * and it never throws: every failure comes back as `{ ok: false, error }`.
 */

import type { BudgetLedger } from "../core/budget.ts";
import { type Clock, systemClock } from "../core/clock.ts";
import { DossierError, toDossierError } from "../core/errors.ts";
import type { EventSink } from "../core/events.ts";
import { createSequentialIds, type IdGenerator } from "../core/ids.ts";
import { type StepJournal, StepKeyer } from "../core/journal.ts";
import { withRetry } from "../core/retry.ts";
import { currentToolCall, withinToolCall } from "../core/tool-context.ts";
import type { Cache } from "../store/types.ts";
import { backOff, recover } from "./adaptive-limit.ts";
import { toolCacheKey } from "./cache-key.ts";
import { InFlight } from "./in-flight.ts";
import type { ProviderLimiter, ProviderSlot } from "./provider-limiter.ts";
import { DEFAULT_PROVIDER_POLICY, PROVIDER_DEFAULTS, type ProviderPolicy } from "./provider-policy.ts";
import { type ProviderState, providerState } from "./provider-state.ts";
import { countsAgainstBreaker, type ToolCall, toolError } from "./tool-call.ts";
import { MetricsRecorder, type ToolMetrics } from "./tool-metrics.ts";
import type { ToolResult } from "./types.ts";

export {
  DEFAULT_PROVIDER_POLICY,
  PROVIDER_DEFAULTS,
  type ProviderPolicy,
} from "./provider-policy.ts";
export type { ToolCall } from "./tool-call.ts";

/** Options of {@link ToolGateway}. */
export interface GatewayOptions {
  cache?: Cache;
  clock?: Clock;
  emit?: EventSink;
  budget?: BudgetLedger;
  signal?: AbortSignal;
  journal?: StepJournal;
  /** Ids of calls (`C1`, `C2`, …). */
  ids?: IdGenerator;
  random?: () => number;
  /** Policy for every provider, over the defaults. */
  defaults?: Partial<ProviderPolicy>;
  /** Policies by provider name, over `defaults`. */
  providers?: Record<string, Partial<ProviderPolicy>>;
  /**
   * Limits shared with other runs (the workers' limiter on Redis): a call to a provider whose
   * policy is `shared` also holds one of its slots there while it runs. Without one each run
   * keeps its own limits only.
   */
  limiter?: ProviderLimiter;
}

/** The tool gateway of a run (or of a CLI command). */
export class ToolGateway {
  readonly #options: GatewayOptions;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #keys = new StepKeyer();
  readonly #providers = new Map<string, ProviderState>();
  readonly #metrics = new MetricsRecorder();
  /**
   * Cacheable calls under way, by cache key: an identical call made meanwhile (two agents
   * searching the same query at once) waits for it instead of asking the provider again.
   */
  readonly #inFlight = new InFlight();

  constructor(options: GatewayOptions = {}) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#ids = options.ids ?? createSequentialIds();
  }

  /** The policy that applies to `provider`. */
  policyOf(provider: string): ProviderPolicy {
    return this.#state(provider).policy;
  }

  /** True when `provider`'s breaker refuses calls now. */
  isOpen(provider: string): boolean {
    return this.#state(provider).breaker.state(this.#clock.now()) === "open";
  }

  /** Counters of all calls so far. */
  metrics(): ToolMetrics {
    return this.#metrics.snapshot();
  }

  /** Makes one call. Never throws. */
  async call<T>(call: ToolCall<T>): Promise<ToolResult<T>> {
    const { emit, cache, journal, budget, signal } = this.#options;
    const state = this.#state(call.provider);
    const callId = this.#ids.next("C");
    const started = this.#clock.now();
    const key = toolCacheKey(call.tool, call.provider, call.args);
    const stepKey = this.#keys.next("tool", key.slice(key.lastIndexOf(":") + 1));
    const base = { callId, tool: call.tool, provider: call.provider };
    const parentCallId = currentToolCall();
    emit?.({ type: "tool-start", ...base, args: call.args, ...(parentCallId ? { parentCallId } : {}) });
    /** Time spent waiting for a slot of the provider's queue (so waiting is told from working). */
    let queueMs = 0;

    const finish = (result: ToolResult<T>): ToolResult<T> => {
      const cached = result.ok && result.cached;
      this.#metrics.record(call.tool, call.provider, { ok: result.ok, cached, latencyMs: result.latencyMs });
      const note = result.ok ? call.note?.(result.value) : undefined;
      const validators = result.ok ? call.validators?.(result.value) : undefined;
      const urls = result.ok ? call.urls?.(result.value) : undefined;
      emit?.({
        type: "tool-end",
        ...base,
        ok: result.ok,
        cached,
        latencyMs: result.latencyMs,
        ...(queueMs > 0 ? { queueMs } : {}),
        ...(result.ok ? {} : { error: result.error }),
        ...(result.ok && call.count ? { resultCount: call.count(result.value) } : {}),
        ...(note ? { note } : {}),
        ...(validators ? { validators } : {}),
        ...(urls ? { urls } : {}),
      });
      return result;
    };
    const fail = (error: unknown): ToolResult<T> =>
      finish({
        ok: false,
        error: toolError(error),
        provider: call.provider,
        callId,
        latencyMs: this.#clock.now() - started,
      });
    const succeed = (value: T, cached: boolean): ToolResult<T> =>
      finish({
        ok: true,
        value,
        cached,
        provider: call.provider,
        callId,
        latencyMs: this.#clock.now() - started,
      });

    if (signal?.aborted) return fail(new DossierError("CANCELLED", "cancelled"));

    const replay = journal?.get(stepKey);
    if (replay?.kind === "tool") {
      budget?.recordReplayedToolCall();
      return succeed(replay.value as T, true);
    }

    const useCache = (call.cache ?? true) && state.policy.cacheTtlMs > 0 && cache !== undefined;
    if (useCache) {
      const hit = await cache.get<{ value: T }>("tool", key, this.#clock.now());
      if (hit) {
        journal?.put(stepKey, { kind: "tool", value: hit.value });
        return succeed(hit.value, true);
      }
      // The same call already under way: its answer, as a cache hit would give it. When that
      // call fails, this one asks the provider itself.
      const pending = this.#inFlight.pending(key);
      const shared = pending ? await pending : undefined;
      if (shared?.ok) {
        journal?.put(stepKey, { kind: "tool", value: shared.value });
        return succeed(shared.value as T, true);
      }
    }
    const done = useCache ? this.#inFlight.claim(key) : () => {};

    if (!state.breaker.tryAcquire(this.#clock.now())) {
      done({ ok: false });
      return fail(
        new DossierError(
          "CIRCUIT_OPEN",
          `${call.provider}: circuit open after repeated failures; not called`,
          {
            retryable: true,
            details: { provider: call.provider },
          },
        ),
      );
    }
    try {
      budget?.reserveToolCall();
    } catch (error) {
      state.breaker.release();
      done({ ok: false });
      return fail(error);
    }

    try {
      const queuedAt = this.#clock.now();
      const value = await state.queue.add(async () => {
        const slot = await this.#sharedSlot(call.provider, state.policy);
        const startedAt = this.#clock.now();
        queueMs = startedAt - queuedAt;
        try {
          return await withinToolCall(callId, () => this.#attempts(call, state, startedAt));
        } finally {
          await slot?.release();
        }
      });
      state.breaker.onSuccess();
      recover(state);
      if (useCache)
        await cache.set("tool", key, { value }, { nowMs: this.#clock.now(), ttlMs: state.policy.cacheTtlMs });
      journal?.put(stepKey, { kind: "tool", value });
      done({ ok: true, value });
      return succeed(value as T, false);
    } catch (error) {
      done({ ok: false });
      const e = signal?.aborted
        ? new DossierError("CANCELLED", "cancelled")
        : toDossierError(error, "TOOL_ERROR");
      if (e.code === "CANCELLED") state.breaker.release();
      else if (countsAgainstBreaker(e)) state.breaker.onFailure(this.#clock.now());
      else state.breaker.onSuccess();
      return fail(e);
    }
  }

  /**
   * Tries `calls` in order (a fallback chain) and returns the first success; providers whose
   * breaker is open are skipped. When all fail, the last failure is returned with every
   * provider's error in its message.
   */
  async callFirst<T>(calls: readonly ToolCall<T>[]): Promise<ToolResult<T>> {
    const failures: string[] = [];
    let last: ToolResult<T> | undefined;
    for (const call of calls) {
      const result = await this.call(call);
      if (result.ok) return result;
      last = result;
      failures.push(`${call.provider}: ${result.error.code}`);
      if (result.error.code === "CANCELLED" || result.error.code === "BUDGET_EXCEEDED") break;
    }
    if (!last) {
      return {
        ok: false,
        error: { code: "PROVIDER_NOT_CONFIGURED", message: "no provider to call", retryable: false },
        provider: "none",
        callId: "",
        latencyMs: 0,
      };
    }
    if (failures.length > 1 && !last.ok) {
      return {
        ...last,
        error: {
          ...last.error,
          message: `all providers failed (${failures.join("; ")}): ${last.error.message}`,
        },
      };
    }
    return last;
  }

  /** A slot of the shared limiter for a call to `provider`, when there is one and the provider is shared. */
  async #sharedSlot(provider: string, policy: ProviderPolicy): Promise<ProviderSlot | null> {
    const { limiter, signal } = this.#options;
    if (!limiter || policy.shared === false) return null;
    const limits = {
      concurrency: policy.concurrency,
      ...(policy.ratePerSecond ? { ratePerSecond: policy.ratePerSecond } : {}),
    };
    return limiter.acquire(provider, limits, signal);
  }

  /** The attempts of one call, retried by its provider's policy. */
  #attempts<T>(call: ToolCall<T>, state: ProviderState, startedAt: number): Promise<T> {
    return withRetry((attempt) => this.#attempt(call, state.policy, attempt, startedAt), {
      policy: state.policy.retry,
      clock: this.#clock,
      signal: this.#options.signal,
      random: this.#options.random,
      classify: (error) => {
        const e = toDossierError(error);
        if (e.code === "RATE_LIMITED") this.#backOff(call.provider, state);
        const retryAfter = e.details.retryAfterMs;
        return typeof retryAfter === "number"
          ? { retryable: e.retryable, retryAfterMs: retryAfter }
          : { retryable: e.retryable };
      },
    });
  }

  async #attempt<T>(
    call: ToolCall<T>,
    policy: ProviderPolicy,
    attempt: number,
    startedAt: number,
  ): Promise<T> {
    const deadlineMs = policy.deadlineMs ?? Math.round(policy.timeoutMs * 1.5);
    const elapsed = this.#clock.now() - startedAt;
    const left = deadlineMs - elapsed;
    if (left <= 0) {
      throw new DossierError(
        "TIMEOUT",
        `${call.provider}: no answer after ${attempt} attempt(s) in ${elapsed} ms (deadline ${deadlineMs} ms)`,
        {
          retryable: false,
          details: { provider: call.provider, deadlineMs, elapsedMs: elapsed, attempts: attempt },
        },
      );
    }
    const limit = Math.min(policy.timeoutMs, left);
    const timeout = new AbortController();
    const timer = setTimeout(() => {
      const spent = this.#clock.now() - startedAt;
      const last = limit < policy.timeoutMs;
      timeout.abort(
        new DossierError(
          "TIMEOUT",
          `${call.provider}: no answer within ${limit} ms (attempt ${attempt + 1}, ${spent} ms since the first${last ? "; deadline reached" : ""})`,
          {
            retryable: !last,
            details: {
              provider: call.provider,
              timeoutMs: limit,
              elapsedMs: spent,
              attempt: attempt + 1,
              deadlineMs,
            },
          },
        ),
      );
    }, limit);
    const signals = [timeout.signal, ...(this.#options.signal ? [this.#options.signal] : [])];
    const signal = AbortSignal.any(signals);
    try {
      return await Promise.race([
        call.run(signal),
        new Promise<never>((_, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The provider's current limit of calls at once (adaptive; at most its policy's concurrency). */
  concurrencyOf(provider: string): number {
    return this.#state(provider).queue.concurrency;
  }

  /** Halves a provider's limit on a 429 and records it. */
  #backOff(provider: string, state: ProviderState): void {
    const changed = backOff(state);
    if (!changed) return;
    this.#options.emit?.({
      type: "warning",
      code: "PROVIDER_BACKOFF",
      message: `${provider} answered 429: ${changed[1]} call(s) at once instead of ${changed[0]}`,
    });
  }

  #state(provider: string): ProviderState {
    let state = this.#providers.get(provider);
    if (!state) {
      let policy: ProviderPolicy = { ...DEFAULT_PROVIDER_POLICY };
      for (const layer of [
        PROVIDER_DEFAULTS[provider],
        this.#options.defaults,
        this.#options.providers?.[provider],
      ]) {
        policy = { ...policy, ...layer };
        // A concurrency set without a ceiling is the ceiling (arXiv's one at a time, a user's limit).
        if (layer?.concurrency !== undefined && layer.maxConcurrency === undefined)
          policy.maxConcurrency = layer.concurrency;
      }
      state = providerState(policy);
      this.#providers.set(provider, state);
    }
    return state;
  }
}
