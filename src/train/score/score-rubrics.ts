/**
 * Scoring generated rubrics with the rubric-generator reward (rubrics paper §3.3, Eq. 1–3):
 * each completion — a rubric a generator wrote for a preference row's query — gets R_total with
 * its components, and its advantage among the completions of the same row (GRPO or RLOO over
 * the group, as the paper trains the generator with GRPO).
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { grpoAdvantages } from "../advantages/grpo.ts";
import { rlooAdvantages } from "../advantages/rloo.ts";
import type { PreferenceRow } from "../preference-row.ts";
import { type RubricGeneratorDeps, rubricGeneratorReward } from "../rewards/rubric-generator.ts";

/** One completion to score: the row it answers (`id`) and the generated rubric. */
export const rubricCompletionSchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  completion: z.string(),
});
/** One completion to score. */
export type RubricCompletion = z.infer<typeof rubricCompletionSchema>;

/** The reward record of one completion. */
export interface RubricRewardRecord {
  /** The preference row's id. */
  id: string;
  /** The completion's place among its row's completions, from 0. */
  index: number;
  reward: number;
  components: { pref: 1 | -1; llm: number; fmt: 0 | -1 };
  lambdas: { pref: number; llm: number };
  scores: { accepted: number | null; rejected: number | null } | null;
  problems: string[];
  /** Advantage among the row's completions; null when the row has one completion. */
  advantage: number | null;
}

/** Options of {@link scoreRubricCompletions}. */
export interface ScoreRubricOptions {
  advantage: "grpo" | "rloo";
  lambdas?: { pref: number; llm: number };
  /** Completions scored at once (default 4). */
  concurrency?: number;
  onScored?: (done: number, total: number) => void;
}

/**
 * Scores every completion against its row. Every completion's row must exist (checked before
 * any judge call); row ids must be unique.
 */
export async function scoreRubricCompletions(
  rows: readonly PreferenceRow[],
  completions: readonly RubricCompletion[],
  deps: RubricGeneratorDeps,
  options: ScoreRubricOptions,
): Promise<RubricRewardRecord[]> {
  const byId = new Map<string, PreferenceRow>();
  rows.forEach((row, i) => {
    const id = row.id ?? String(i + 1);
    if (byId.has(id)) throw new DossierError("INPUT_INVALID", `preference row id "${id}" is given twice`);
    byId.set(id, row);
  });
  const missing = [...new Set(completions.map((c) => c.id).filter((id) => !byId.has(id)))];
  if (missing.length)
    throw new DossierError(
      "INPUT_INVALID",
      `completions name rows not in the preference file: ${missing.join(", ")}`,
    );
  const indexOf = new Map<string, number>();
  const jobs = completions.map((c) => {
    const index = indexOf.get(c.id) ?? 0;
    indexOf.set(c.id, index + 1);
    return { c, index };
  });
  const scored = new Array<Omit<RubricRewardRecord, "advantage">>(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const k = next++;
      const { c, index } = jobs[k]!;
      const r = await rubricGeneratorReward(c.completion, byId.get(c.id)!, deps, {
        ...(options.lambdas ? { lambdaPref: options.lambdas.pref, lambdaLlm: options.lambdas.llm } : {}),
      });
      scored[k] = { id: c.id, index, ...r };
      options.onScored?.(++done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  return withAdvantages(scored, options.advantage);
}

function withAdvantages(
  scored: readonly Omit<RubricRewardRecord, "advantage">[],
  kind: "grpo" | "rloo",
): RubricRewardRecord[] {
  const groups = new Map<string, number[]>();
  scored.forEach((s, k) => {
    groups.set(s.id, [...(groups.get(s.id) ?? []), k]);
  });
  const advantage = new Array<number | null>(scored.length).fill(null);
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const rewards = members.map((k) => scored[k]!.reward);
    const values = kind === "rloo" ? rlooAdvantages(rewards) : grpoAdvantages(rewards);
    members.forEach((k, i) => {
      advantage[k] = values[i]!;
    });
  }
  return scored.map((s, k) => ({ ...s, advantage: advantage[k]! }));
}
