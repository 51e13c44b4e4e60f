/**
 * Generating RACE criteria for new queries (DeepResearch Bench `utils/generate_criteria.py`):
 * the dimension weights are sampled several times (default 5) and averaged, renormalised to
 * sum 1, rounded to 2 decimals with the rounding residual added to readability; then one call
 * per dimension writes its criteria. Tasks run concurrently under a limit; a task with any
 * failed call is counted as failed and left out of the output (the benchmark raises there).
 */

import { toDossierError } from "../../core/errors.ts";
import type { LlmClient } from "../../llm/client.ts";
import { generateStructured } from "../../llm/structured.ts";
import { runConcurrently } from "../concurrency.ts";
import {
  buildCriteriaPrompt,
  buildWeightsPrompt,
  type DimensionWeights,
  dimensionCriteriaSchema,
  dimensionWeightsSchema,
} from "./criteria-prompts.ts";
import { roundHalfEven } from "./py-numbers.ts";
import { RACE_DIMENSIONS, type RaceCriteria, type RaceCriterion, type RaceQuery } from "./records.ts";

/** Default number of weight samples per task. */
export const DEFAULT_WEIGHT_SAMPLES = 5;

/**
 * Averages weight samples like the benchmark: dimensions present in every sample are
 * averaged, renormalised to sum 1, rounded to 2 decimals (ties to even), and `1 − Σ rounded`
 * is added to readability (rounded again) when it is not negligible (> 1e-10).
 */
export function averageDimensionWeights(samples: readonly Record<string, number>[]): Record<string, number> {
  if (samples.length === 0) throw new Error("no weight samples");
  const dims: string[] = [];
  for (const s of samples) for (const k of Object.keys(s)) if (!dims.includes(k)) dims.push(k);
  const avg: Record<string, number> = {};
  for (const dim of dims) {
    const values = samples.filter((s) => Object.hasOwn(s, dim)).map((s) => s[dim]!);
    if (values.length === samples.length) avg[dim] = values.reduce((a, b) => a + b, 0) / values.length;
  }
  const total = Object.values(avg).reduce((a, b) => a + b, 0);
  const rounded: Record<string, number> = {};
  for (const [dim, w] of Object.entries(avg)) rounded[dim] = roundHalfEven(w / total, 2);
  const diff = 1 - Object.values(rounded).reduce((a, b) => a + b, 0);
  if (Math.abs(diff) > 1e-10) rounded.readability = roundHalfEven((rounded.readability ?? 0) + diff, 2);
  return rounded;
}

/** Options of {@link generateRaceCriteria}. */
export interface CriteriaGenOptions {
  llm: LlmClient;
  queries: readonly RaceQuery[];
  /** Weight samples per task. Default 5. */
  samples?: number;
  /** Tasks in flight at once. Default 4. */
  concurrency?: number;
  /** Re-asks after an invalid answer. Default 4 (five tries, as the benchmark). */
  maxRepairs?: number;
  signal?: AbortSignal;
  onTask?: (outcome: CriteriaGenOutcome, done: number, total: number) => void;
}

/** One task's outcome. */
export type CriteriaGenOutcome =
  | { ok: true; query: RaceQuery; criteria: RaceCriteria; calls: number; formatErrors: number }
  | { ok: false; query: RaceQuery; error: string };

async function generateForQuery(
  query: RaceQuery,
  options: CriteriaGenOptions,
): Promise<Extract<CriteriaGenOutcome, { ok: true }>> {
  const maxRepairs = options.maxRepairs ?? 4;
  let calls = 0;
  let formatErrors = 0;
  const weightsPrompt = buildWeightsPrompt(query.prompt);
  const samples: DimensionWeights[] = [];
  for (let i = 0; i < (options.samples ?? DEFAULT_WEIGHT_SAMPLES); i++) {
    const r = await generateStructured(options.llm, {
      role: "judge",
      ...weightsPrompt,
      schema: dimensionWeightsSchema,
      maxRepairs,
    });
    calls += r.calls;
    formatErrors += r.formatErrors;
    samples.push(r.value);
  }
  const criterions: Record<string, RaceCriterion[]> = {};
  for (const dim of RACE_DIMENSIONS) {
    const r = await generateStructured(options.llm, {
      role: "judge",
      ...buildCriteriaPrompt(query.prompt, dim),
      schema: dimensionCriteriaSchema,
      maxRepairs,
    });
    calls += r.calls;
    formatErrors += r.formatErrors;
    criterions[dim] = r.value;
  }
  const criteria: RaceCriteria = {
    id: query.id,
    prompt: query.prompt,
    dimension_weight: averageDimensionWeights(samples as unknown as Record<string, number>[]),
    criterions,
  };
  return { ok: true, query, criteria, calls, formatErrors };
}

/** Generates criteria for every query; outcomes in input order. */
export async function generateRaceCriteria(options: CriteriaGenOptions): Promise<CriteriaGenOutcome[]> {
  const settled = await runConcurrently(options.queries, (q) => generateForQuery(q, options), {
    concurrency: options.concurrency ?? 4,
    signal: options.signal,
    onSettled: (outcome, query, _i, progress) => {
      const o: CriteriaGenOutcome = outcome.ok
        ? outcome.value
        : { ok: false, query, error: toDossierError(outcome.error).message };
      options.onTask?.(o, progress.done, progress.total);
    },
  });
  return settled.map((s, i) =>
    s.ok ? s.value : { ok: false as const, query: options.queries[i]!, error: s.error.message },
  );
}
