/**
 * The plan of a group rollout: G independent rollouts of each question row, each with its own
 * sampling seed, and the sampling the strategy's paper trained with.
 *
 * - Seeds are derived from the base seed, the question id and the group index (the first 31
 *   bits of a SHA-256), so a re-run draws the same seeds and the rollouts of one question never
 *   share one.
 * - Sampling: each strategy's definition states its paper's (SMTL 1.0 / 0.9, AgentCPM-Report
 *   0.7 / 0.8, MaMs 1.0 / 1.0; see `dossier strategies`), and every run sends it; a
 *   temperature or top-p the user gives as an option wins.
 * - smtl runs in its deep-search mode (`mode: "answer"`, a short answer), the mode whose reward
 *   (the judge on the answer) the paper trains with, unless another mode is asked for.
 */

import { createHash } from "node:crypto";
import { DossierError } from "../../core/errors.ts";
import type { QuestionRow } from "../question-row.ts";

/** One rollout of the plan. */
export interface PlannedRollout {
  row: QuestionRow;
  /** Its index in the question's group, from 0. */
  index: number;
  seed: number;
  /** Its id in the rollouts' state files: `<question id>#<index>`. */
  key: string;
}

/** The seed of rollout `index` of question `questionId`. */
export function rolloutSeed(base: number, questionId: string, index: number): number {
  const digest = createHash("sha256").update(`${base}\u0000${questionId}\u0000${index}`).digest();
  return digest.readUInt32BE(0) & 0x7fffffff;
}

/** The rollouts of `rows`, `group` per row, question by question. */
export function planRollouts(rows: readonly QuestionRow[], group: number, baseSeed = 0): PlannedRollout[] {
  if (!Number.isInteger(group) || group < 1)
    throw new DossierError("INPUT_INVALID", `the group size must be a positive integer, got ${group}`);
  return rows.flatMap((row) => {
    const seeds = new Set<number>();
    return Array.from({ length: group }, (_, index) => {
      let seed = rolloutSeed(baseSeed, row.id, index);
      while (seeds.has(seed)) seed = (seed + 1) & 0x7fffffff;
      seeds.add(seed);
      return { row, index, seed, key: `${row.id}#${index}` };
    });
  });
}

/** The strategy options of every rollout: smtl's search mode under the user's. */
export function rolloutStrategyOptions(
  strategy: string,
  user: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return {
    ...(strategy === "smtl" ? { mode: "answer" } : {}),
    ...user,
  };
}
