/**
 * The coefficients of MindDR's Search-RL composite reward (Eq. 9) and their threshold-triggered
 * schedule (§5.2, Fig. 5).
 *
 * The four coefficients sum to 1; λ_ORM = 1 − λ_tool − λ_format − λ_PRM is implicit and kept in
 * [0, 0.5]. They start at (λ_tool, λ_format, λ_PRM, λ_ORM) = (0.6, 0.3, 0.1, 0.0) and move
 * through three phases, each triggered when a capability saturates:
 *
 *  1. tool-call success reaches its threshold → λ_tool is reduced and the released weight goes
 *     to λ_PRM;
 *  2. format compliance reaches its threshold → λ_format is reduced (λ_ORM takes the weight);
 *  3. PRM entity coverage reaches its threshold → λ_PRM is reduced and ORM dominates.
 *
 * The paper gives neither the thresholds nor the amounts moved; these are our choices, all
 * configurable: thresholds tool success 0.95, format compliance 0.95, PRM coverage 0.6, and
 * phase targets (λ_tool, λ_format, λ_PRM) = (0.2, 0.3, 0.5) → (0.2, 0.1, 0.5) → (0.2, 0.1, 0.2),
 * which make λ_ORM 0 → 0.2 → 0.5, its cap. Also ours: a phase advances at most once per batch
 * (each capability gets at least one batch of focused weight), only in order, after its metric
 * has met its threshold (≥) in `patience` consecutive batches (default 1); a batch without the
 * metric (null) resets the streak. The state is plain data: a trainer passes the state it got
 * back from the last batch into the next update.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { parseInput } from "../parse-input.ts";

/** The four coefficients of Eq. 9. */
export interface SearchLambdas {
  tool: number;
  format: number;
  prm: number;
  orm: number;
}

/** Upper bound of λ_ORM (§5.2). */
export const MAX_ORM_LAMBDA = 0.5;
const EPS = 1e-9;

/** Rounds away float noise (0.30000000000000004 → 0.3). */
const tidy = (x: number) => Math.round(x * 1e12) / 1e12;

/**
 * The coefficients with λ_ORM = 1 − λ_tool − λ_format − λ_PRM; refuses a negative coefficient
 * or a λ_ORM outside [0, 0.5].
 */
export function searchLambdas(tool: number, format: number, prm: number): SearchLambdas {
  const orm = tidy(1 - tool - format - prm);
  if ([tool, format, prm].some((x) => !(x >= 0)))
    throw new DossierError("INPUT_INVALID", "λ_tool, λ_format and λ_PRM must be ≥ 0");
  if (orm < -EPS || orm > MAX_ORM_LAMBDA + EPS)
    throw new DossierError(
      "INPUT_INVALID",
      `λ_ORM = 1 − ${tool} − ${format} − ${prm} = ${orm} is outside [0, ${MAX_ORM_LAMBDA}]`,
    );
  return { tool, format, prm, orm: Math.max(0, orm) };
}

/** The initial coefficients (0.6, 0.3, 0.1, 0.0). */
export const INITIAL_SEARCH_LAMBDAS: Readonly<SearchLambdas> = Object.freeze(searchLambdas(0.6, 0.3, 0.1));

const target = z.object({ tool: z.number(), format: z.number(), prm: z.number() });

/** The schedule's configuration (every field has the default named in the module comment). */
export const lambdaScheduleConfigSchema = z
  .object({
    thresholds: z
      .object({
        toolSuccess: z.number().min(0).max(1).default(0.95),
        formatCompliance: z.number().min(0).max(1).default(0.95),
        prmCoverage: z.number().min(0).max(1).default(0.6),
      })
      .prefault({}),
    patience: z.number().int().positive().default(1),
    /** (λ_tool, λ_format, λ_PRM) after phases 1, 2 and 3. */
    phases: z.tuple([target, target, target]).default([
      { tool: 0.2, format: 0.3, prm: 0.5 },
      { tool: 0.2, format: 0.1, prm: 0.5 },
      { tool: 0.2, format: 0.1, prm: 0.2 },
    ]),
  })
  .superRefine((config, ctx) => {
    config.phases.forEach((p, i) => {
      try {
        searchLambdas(p.tool, p.format, p.prm);
      } catch (error) {
        ctx.addIssue({ code: "custom", path: ["phases", i], message: (error as Error).message });
      }
    });
  });
/** The schedule's configuration, as given. */
export type LambdaScheduleConfigInput = z.input<typeof lambdaScheduleConfigSchema>;
/** The schedule's configuration, with defaults. */
export type LambdaScheduleConfig = z.output<typeof lambdaScheduleConfigSchema>;

/** One batch's mean figures (null when the batch had none). */
export interface SearchBatchMetrics {
  /** Share of tool-calling steps whose tool calls all succeeded. */
  toolSuccess: number | null;
  /** Share of steps whose output was format-valid. */
  formatCompliance: number | null;
  /** Mean R_PRM. */
  prmCoverage: number | null;
  /** Mean R_ORM (reported; no phase waits on it). */
  ormAccuracy?: number | null;
}

/** A phase change. */
export interface LambdaTransition {
  /** The batch (1-based count of updates) whose metrics triggered it. */
  batch: number;
  /** The phase entered (1–3). */
  phase: 1 | 2 | 3;
  metric: "toolSuccess" | "formatCompliance" | "prmCoverage";
  value: number;
  threshold: number;
  lambdas: SearchLambdas;
}

/** The schedule's state, carried by the trainer between batches. */
export interface LambdaScheduleState {
  /** 0 before any transition, 3 after the last. */
  phase: 0 | 1 | 2 | 3;
  lambdas: SearchLambdas;
  /** Consecutive batches in which the next phase's metric met its threshold. */
  streak: number;
  /** Batches seen. */
  batches: number;
  transitions: LambdaTransition[];
}

/** The state before the first batch. */
export function initialLambdaState(): LambdaScheduleState {
  return { phase: 0, lambdas: { ...INITIAL_SEARCH_LAMBDAS }, streak: 0, batches: 0, transitions: [] };
}

const WATCHED = ["toolSuccess", "formatCompliance", "prmCoverage"] as const;

/** The state after one batch with `metrics` (a new object; `state` is not changed). */
export function updateLambdaSchedule(
  state: LambdaScheduleState,
  metrics: SearchBatchMetrics,
  config: LambdaScheduleConfigInput = {},
): LambdaScheduleState {
  const { thresholds, patience, phases } = parseInput(lambdaScheduleConfigSchema, config, "λ schedule");
  const batches = state.batches + 1;
  if (state.phase === 3) return { ...state, batches, transitions: [...state.transitions] };
  const metric = WATCHED[state.phase];
  const value = metrics[metric];
  const threshold = thresholds[metric];
  const streak = value !== null && value >= threshold ? state.streak + 1 : 0;
  if (streak < patience || value === null)
    return { ...state, streak, batches, transitions: [...state.transitions] };
  const phase = (state.phase + 1) as 1 | 2 | 3;
  const p = phases[phase - 1]!;
  const lambdas = searchLambdas(p.tool, p.format, p.prm);
  return {
    phase,
    lambdas,
    streak: 0,
    batches,
    transitions: [...state.transitions, { batch: batches, phase, metric, value, threshold, lambdas }],
  };
}
