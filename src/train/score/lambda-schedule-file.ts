/**
 * MindDR's λ schedule across invocations (`train reward --reward minddr-search --schedule FILE`):
 * the schedule's state (minddr-lambdas.ts) kept as JSON between scorings, so the four-phase
 * curriculum advances batch by batch as a trainer calls `train reward` after each rollout batch.
 * A file that does not exist yet is the initial state; a file written by hand is checked.
 */

import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { parseInput } from "../parse-input.ts";
import {
  initialLambdaState,
  type LambdaScheduleState,
  type SearchBatchMetrics,
  searchLambdas,
  updateLambdaSchedule,
} from "../rewards/minddr-lambdas.ts";

const lambdasSchema = z.object({ tool: z.number(), format: z.number(), prm: z.number(), orm: z.number() });

/** The state as stored. */
export const lambdaStateSchema = z.object({
  phase: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  lambdas: lambdasSchema,
  streak: z.number().int().nonnegative(),
  batches: z.number().int().nonnegative(),
  transitions: z.array(
    z.object({
      batch: z.number().int().positive(),
      phase: z.union([z.literal(1), z.literal(2), z.literal(3)]),
      metric: z.enum(["toolSuccess", "formatCompliance", "prmCoverage"]),
      value: z.number(),
      threshold: z.number(),
      lambdas: lambdasSchema,
    }),
  ),
});

/** The schedule's state in `path`, or the initial state when the file does not exist. */
export function readLambdaState(path: string): LambdaScheduleState {
  if (!existsSync(path)) return initialLambdaState();
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new DossierError("INPUT_INVALID", `${path}: not JSON`);
  }
  const state = parseInput(lambdaStateSchema, value, path);
  const { tool, format, prm } = state.lambdas;
  return { ...state, lambdas: searchLambdas(tool, format, prm) };
}

/** The state after one batch, written to `path` (atomically); the new state. */
export function advanceLambdaState(
  path: string,
  state: LambdaScheduleState,
  metrics: SearchBatchMetrics,
): LambdaScheduleState {
  const next = updateLambdaSchedule(state, metrics);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
  return next;
}

/** `--lambdas tool,format,prm` as the Eq. 9 coefficients (λ_ORM is the rest). */
export function parseLambdas(text: string) {
  const parts = text.split(",").map((x) => Number(x.trim()));
  if (parts.length !== 3 || parts.some((x) => !Number.isFinite(x)))
    throw new DossierError(
      "INPUT_INVALID",
      `--lambdas takes λ_tool,λ_format,λ_PRM (λ_ORM is 1 minus their sum), got "${text}"`,
    );
  return searchLambdas(parts[0]!, parts[1]!, parts[2]!);
}
