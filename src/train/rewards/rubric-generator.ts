/**
 * `rubric-generator`: the hybrid reward that trains a query-specific rubric generator with GRPO
 * (rubrics paper §3.3):
 *
 *     R_total = λ_pref R_pref + λ_llm R_llm + R_fmt                                    (Eq. 1)
 *     S(r | y) = Σ_k w_k v_k / Σ_k w_k                                                 (Eq. 2)
 *     R_pref(y) = +1 if S(r_acc | y) > S(r_rej | y), else −1                            (Eq. 3)
 *
 * over a preference row (q, r_acc, r_rej) and a generated rubric y (the generator's raw
 * completion). R_fmt is the hard schema constraint: −1 when the completion is not a JSON list
 * of rubric items with a title, a description and a numeric weight, else 0 — the schema is the
 * paper's whole check: the 7–20 items the generator's prompt asks for (Appendix C.1) is guidance
 * to the generator, not a format term (an empty list is no rubric and fails). R_llm = Judge(q, y) is the injected
 * meta-judge's quality score (the paper's scale is [0, 4]). λ_pref = λ_llm = 1 by default (the
 * paper's setting, Appendix D).
 *
 * Our choices: the completion's JSON is found as structured output finds it (reasoning blocks
 * and a code fence are tolerated); a malformed rubric cannot rank the reports, so it gets
 * R_pref = −1 and R_llm = 0 without any judge call; a tie, or a report none of whose items could
 * be rated, is not a correct ranking (R_pref = −1, Eq. 3's "otherwise").
 */

import { z } from "zod";
import { extractJson } from "../../llm/json-extract.ts";
import type { PreferenceRow } from "../preference-row.ts";
import type { RowRubricItem } from "../question-row.ts";
import { type RubricItemRater, rubricReportScore } from "./rubric.ts";

/** The schema a generated rubric must meet (R_fmt = 0). */
export const rubricCandidateSchema = z
  .array(
    z.object({
      title: z.string().trim().min(1),
      description: z.string().trim().min(1),
      weight: z.number().finite(),
    }),
  )
  .min(1);

/** The meta-judge's quality score of a rubric for a query (R_llm). */
export type RubricQualityJudge = (input: {
  query: string;
  items: readonly RowRubricItem[];
}) => Promise<number>;

/** Dependencies of {@link rubricGeneratorReward}. */
export interface RubricGeneratorDeps {
  rate: RubricItemRater;
  quality: RubricQualityJudge;
}

/** The reward of one generated rubric. */
export interface RubricGeneratorReward {
  reward: number;
  components: { pref: 1 | -1; llm: number; fmt: 0 | -1 };
  lambdas: { pref: number; llm: number };
  /** S(r_acc | y) and S(r_rej | y), when the rubric was valid. */
  scores: { accepted: number | null; rejected: number | null } | null;
  /** Why the rubric is malformed (empty when valid). */
  problems: string[];
}

/** The items of a completion, or the reasons it is malformed. */
export function parseRubricCandidate(
  completion: string,
): { items: RowRubricItem[] } | { problems: string[] } {
  const json = extractJson(completion);
  if (!json.ok) return { problems: [json.error] };
  const parsed = rubricCandidateSchema.safeParse(json.value);
  if (!parsed.success)
    return { problems: parsed.error.issues.map((i) => `${i.path.join(".") || "rubric"}: ${i.message}`) };
  return { items: parsed.data };
}

/** The `rubric-generator` reward of one completion (see the module comment). */
export async function rubricGeneratorReward(
  completion: string,
  row: PreferenceRow,
  deps: RubricGeneratorDeps,
  options: { lambdaPref?: number; lambdaLlm?: number } = {},
): Promise<RubricGeneratorReward> {
  const lambdas = { pref: options.lambdaPref ?? 1, llm: options.lambdaLlm ?? 1 };
  const candidate = parseRubricCandidate(completion);
  if ("problems" in candidate) {
    const components = { pref: -1, llm: 0, fmt: -1 } as const;
    return { reward: -lambdas.pref - 1, components, lambdas, scores: null, problems: candidate.problems };
  }
  const { items } = candidate;
  const [accepted, rejected, llm] = await Promise.all([
    rubricReportScore(row.query, items, row.accepted, deps.rate),
    rubricReportScore(row.query, items, row.rejected, deps.rate),
    deps.quality({ query: row.query, items }),
  ]);
  const acc = accepted.score.score;
  const rej = rejected.score.score;
  const pref = acc !== null && rej !== null && acc > rej ? 1 : -1;
  return {
    reward: lambdas.pref * pref + lambdas.llm * llm,
    components: { pref, llm, fmt: 0 },
    lambdas,
    scores: { accepted: acc, rejected: rej },
    problems: [],
  };
}
