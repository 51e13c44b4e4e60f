/**
 * The budget ledger: hard limits on tokens, tool calls, wall time, cost and iterations,
 * checked before every model and tool call.
 *
 * Model calls reserve their worst case before they start (estimated input + the output cap)
 * and settle with the real figures after, so concurrent calls cannot jointly overrun a limit:
 * when the remaining tokens or dollars cannot hold a call's estimated input plus a minimal
 * answer, the call is refused; otherwise its output cap is lowered to what fits. Tool calls
 * are counted when they start.
 */

import { z } from "zod";
import type { Clock } from "./clock.ts";
import { DossierError } from "./errors.ts";

/** The limits; an absent field means unlimited. */
export const budgetLimitsSchema = z.object({
  maxTokens: z.number().int().positive().optional(),
  maxToolCalls: z.number().int().nonnegative().optional(),
  maxWallMs: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().optional(),
  maxIterations: z.number().int().positive().optional(),
});
/** The limits; an absent field means unlimited. */
export type BudgetLimits = z.infer<typeof budgetLimitsSchema>;

/** The name of a limit, as used in `stopReason` and BUDGET_EXCEEDED details. */
export type BudgetLimitName = "tokens" | "toolCalls" | "wallTime" | "cost" | "iterations";

/** Smallest output a model call is allowed to be squeezed to. */
export const MIN_OUTPUT_TOKENS = 64;

/** What a model call intends to use. */
export interface LlmEstimate {
  estimatedInputTokens: number;
  /** The output cap the caller wants. */
  maxOutputTokens: number;
  /** USD per input and output token; null when the price is unknown. */
  pricePerToken: { input: number; output: number } | null;
}

/** A granted model call. */
export interface LlmReservation {
  readonly id: number;
  /** The output cap that fits the remaining budget. */
  readonly maxOutputTokens: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** Figures of a finished model call; null = unknown. */
export interface LlmActual {
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
}

/** What has been used. */
export interface BudgetUsed {
  /** Tokens counted against the limit (real counts; reserved estimates where unknown). */
  tokens: number;
  toolCalls: number;
  wallMs: number;
  /** Known cost in USD. */
  costUsd: number;
  iterations: number;
  llmCalls: number;
  /** Calls whose token counts were unknown (estimates were counted instead). */
  unknownTokenCalls: number;
  /** Calls whose cost was unknown (not counted in `costUsd`). */
  unknownCostCalls: number;
}

/** Limits and usage at one moment. */
export interface BudgetSnapshot {
  limits: BudgetLimits;
  used: BudgetUsed;
}

/** Tracks usage against limits. */
export class BudgetLedger {
  readonly limits: BudgetLimits;
  readonly #clock: Clock;
  readonly #startedAt: number;
  #used: Omit<BudgetUsed, "wallMs">;
  #reserved = new Map<number, LlmReservation>();
  #nextId = 1;

  constructor(options: { limits?: BudgetLimits; clock: Clock; startedAt?: number; used?: BudgetUsed }) {
    this.limits = budgetLimitsSchema.parse(options.limits ?? {});
    this.#clock = options.clock;
    const elapsed = options.used?.wallMs ?? 0;
    this.#startedAt = (options.startedAt ?? this.#clock.now()) - elapsed;
    const u = options.used;
    this.#used = {
      tokens: u?.tokens ?? 0,
      toolCalls: u?.toolCalls ?? 0,
      costUsd: u?.costUsd ?? 0,
      iterations: u?.iterations ?? 0,
      llmCalls: u?.llmCalls ?? 0,
      unknownTokenCalls: u?.unknownTokenCalls ?? 0,
      unknownCostCalls: u?.unknownCostCalls ?? 0,
    };
  }

  /** The first limit that is reached, or null. */
  exhausted(): BudgetLimitName | null {
    const l = this.limits;
    const u = this.#used;
    if (l.maxWallMs !== undefined && this.wallMs() >= l.maxWallMs) return "wallTime";
    if (l.maxTokens !== undefined && u.tokens + this.#reservedTokens() + MIN_OUTPUT_TOKENS > l.maxTokens)
      return "tokens";
    if (l.maxCostUsd !== undefined && u.costUsd + this.#reservedCost() >= l.maxCostUsd) return "cost";
    if (l.maxToolCalls !== undefined && u.toolCalls >= l.maxToolCalls) return "toolCalls";
    if (l.maxIterations !== undefined && u.iterations >= l.maxIterations) return "iterations";
    return null;
  }

  /** Throws BUDGET_EXCEEDED when the wall-time limit is reached. */
  checkTime(): void {
    if (this.limits.maxWallMs !== undefined && this.wallMs() >= this.limits.maxWallMs)
      throw exceeded("wallTime");
  }

  /** Reserves a model call or throws BUDGET_EXCEEDED naming the limit that does not allow it. */
  reserveLlm(estimate: LlmEstimate): LlmReservation {
    this.checkTime();
    let maxOutput = Math.max(1, Math.floor(estimate.maxOutputTokens));
    const input = Math.max(0, Math.ceil(estimate.estimatedInputTokens));
    if (this.limits.maxTokens !== undefined) {
      const room = this.limits.maxTokens - this.#used.tokens - this.#reservedTokens() - input;
      if (room < Math.min(MIN_OUTPUT_TOKENS, maxOutput)) throw exceeded("tokens");
      maxOutput = Math.min(maxOutput, room);
    }
    let cost = 0;
    if (this.limits.maxCostUsd !== undefined && estimate.pricePerToken) {
      const p = estimate.pricePerToken;
      const room = this.limits.maxCostUsd - this.#used.costUsd - this.#reservedCost() - input * p.input;
      const minOut = Math.min(MIN_OUTPUT_TOKENS, maxOutput);
      if (room < minOut * p.output) throw exceeded("cost");
      if (p.output > 0) maxOutput = Math.min(maxOutput, Math.floor(room / p.output));
      cost = input * p.input + maxOutput * p.output;
    }
    const reservation: LlmReservation = {
      id: this.#nextId++,
      maxOutputTokens: maxOutput,
      tokens: input + maxOutput,
      costUsd: cost,
    };
    this.#reserved.set(reservation.id, reservation);
    return reservation;
  }

  /** Replaces a reservation with the call's real figures (estimates where unknown). */
  settleLlm(reservation: LlmReservation, actual: LlmActual): void {
    if (!this.#reserved.delete(reservation.id)) return;
    this.#used.llmCalls++;
    if (actual.inputTokens === null || actual.outputTokens === null) {
      this.#used.unknownTokenCalls++;
      this.#used.tokens += reservation.tokens;
    } else {
      this.#used.tokens += actual.inputTokens + actual.outputTokens;
    }
    if (actual.costUsd === null) this.#used.unknownCostCalls++;
    else this.#used.costUsd += actual.costUsd;
  }

  /**
   * Records a model call that needs no reservation because its result was replayed from the
   * journal; `fallbackTokens` counts when its token figures are unknown.
   */
  recordLlm(actual: LlmActual, fallbackTokens: number): void {
    const reservation: LlmReservation = {
      id: this.#nextId++,
      maxOutputTokens: 0,
      tokens: fallbackTokens,
      costUsd: 0,
    };
    this.#reserved.set(reservation.id, reservation);
    this.settleLlm(reservation, actual);
  }

  /** Releases a reservation of a call that never reached the model. */
  release(reservation: LlmReservation): void {
    this.#reserved.delete(reservation.id);
  }

  /** Counts one tool call, or throws BUDGET_EXCEEDED when no call is left. */
  reserveToolCall(): void {
    this.checkTime();
    if (this.limits.maxToolCalls !== undefined && this.#used.toolCalls >= this.limits.maxToolCalls) {
      throw exceeded("toolCalls");
    }
    this.#used.toolCalls++;
  }

  /**
   * Counts a tool call replayed from the journal of an earlier attempt of the run: it was paid
   * for then, so it counts now, but it is never refused.
   */
  recordReplayedToolCall(): void {
    this.#used.toolCalls++;
  }

  /** Starts one more outer-loop iteration (returns its 1-based number) or throws BUDGET_EXCEEDED. */
  startIteration(): number {
    this.checkTime();
    if (this.limits.maxIterations !== undefined && this.#used.iterations >= this.limits.maxIterations) {
      throw exceeded("iterations");
    }
    return ++this.#used.iterations;
  }

  /** Milliseconds since the run started. */
  wallMs(): number {
    return this.#clock.now() - this.#startedAt;
  }

  /** Current limits and usage. */
  snapshot(): BudgetSnapshot {
    return { limits: { ...this.limits }, used: { ...this.#used, wallMs: this.wallMs() } };
  }

  #reservedTokens(): number {
    let sum = 0;
    for (const r of this.#reserved.values()) sum += r.tokens;
    return sum;
  }

  #reservedCost(): number {
    let sum = 0;
    for (const r of this.#reserved.values()) sum += r.costUsd;
    return sum;
  }
}

/** The BUDGET_EXCEEDED error for a limit. */
export function exceeded(limit: BudgetLimitName): DossierError {
  return new DossierError("BUDGET_EXCEEDED", `budget limit reached: ${limit}`, { details: { limit } });
}

/** The limit named by a BUDGET_EXCEEDED error, or null for any other error. */
export function exceededLimit(error: unknown): BudgetLimitName | null {
  return error instanceof DossierError && error.code === "BUDGET_EXCEEDED"
    ? (error.details.limit as BudgetLimitName)
    : null;
}
