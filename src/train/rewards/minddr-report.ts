/**
 * `minddr-report`: the Report-RL reward of MindDR (§5.3):
 *
 *     R_Report = R_RACE + λ_c R_cite + λ_f R_format                                   (Eq. 12)
 *
 * - R_RACE: the weighted RACE score of the report against the row's criteria, from an injected
 *   scorer (the evaluation toolkit's RACE judge, or any function with its contract);
 * - R_cite: Eq. 10 (citation-reward.ts), against the row's reference report;
 * - R_format = −(v_tag + v_md + v_ref) ∈ [−3, 0]: Eq. 11 (report-format.ts).
 *
 * λ_c and λ_f are "tunable balancing coefficients" the paper does not give; our defaults are
 * λ_c = 1 and λ_f = 0.1 (a fully malformed report loses 0.3, of the order of a RACE gap). A run
 * without a report scores R_RACE = 0 without calling the scorer. The row's reference report is
 * required.
 */

import { DossierError } from "../../core/errors.ts";
import type { Role } from "../../llm/model-spec.ts";
import type { QuestionRow } from "../question-row.ts";
import type { RecordedRun } from "../recorded-run.ts";
import {
  CITATION_RATIO,
  type CitationCounts,
  type CitationRelevance,
  citationCounts,
  citationReward,
  DEFAULT_RELEVANCE_THRESHOLD,
  type JudgedCitation,
} from "./citation-reward.ts";
import {
  citationProblems,
  type FormatProblem,
  finalAnswerProblems,
  markdownProblems,
} from "./report-format.ts";

/** Scores a report with RACE against the row's criteria (the weighted score, usually in [0, 1]). */
export type RaceScorer = (input: { report: string; row: QuestionRow }) => Promise<number>;

/** Dependencies of {@link minddrReportReward}. */
export interface MinddrReportDeps {
  race: RaceScorer;
  /** Citation relevance (default: lexical overlap, see citation-reward.ts). */
  relevance?: CitationRelevance;
}

/** Options of {@link minddrReportReward}. */
export interface MinddrReportOptions {
  /** λ_c (default 1). */
  lambdaCite?: number;
  /** λ_f (default 0.1). */
  lambdaFormat?: number;
  /** τ (default 0.3). */
  tau?: number;
  /** The 0.7 of Eq. 10. */
  ratio?: number;
  /** The final-answer tag v_tag checks (e.g. "final_answer"); null (default) only asks for a report. */
  tag?: string | null;
  /** With a tag: the role whose last call's raw completion must carry it (default "writer"). */
  answerRole?: Role;
}

/** The reward of one report with every component. */
export interface MinddrReportReward {
  reward: number;
  components: { race: number; cite: number; format: number };
  lambdas: { cite: number; format: number };
  citations: CitationCounts & { judged: JudgedCitation[] };
  violations: { tag: 0 | 1; markdown: 0 | 1; citation: 0 | 1 };
  problems: FormatProblem[];
}

/** The `minddr-report` reward of a run (see the module comment). */
export async function minddrReportReward(
  run: RecordedRun,
  deps: MinddrReportDeps,
  options: MinddrReportOptions = {},
): Promise<MinddrReportReward> {
  const reference = run.row.reference;
  if (!reference)
    throw new DossierError(
      "INPUT_INVALID",
      `row ${run.row.id}: minddr-report needs the row's reference report (Eq. 10)`,
    );
  const lambdaCite = options.lambdaCite ?? 1;
  const lambdaFormat = options.lambdaFormat ?? 0.1;
  const tag = options.tag ?? null;
  const report = run.report ?? "";

  const race = run.report === null ? 0 : await deps.race({ report, row: run.row });
  const counts = await citationCounts(report, reference, run, {
    ...(deps.relevance ? { relevance: deps.relevance } : {}),
    tau: options.tau ?? DEFAULT_RELEVANCE_THRESHOLD,
  });
  const cite = citationReward(counts, options.ratio ?? CITATION_RATIO);

  const answerRole = options.answerRole ?? "writer";
  const answer =
    tag === null ? run.report : (run.calls.findLast((c) => c.role === answerRole)?.completion ?? null);
  const tagProblems = finalAnswerProblems(answer, tag);
  const mdProblems = run.report === null ? [] : markdownProblems(report);
  const refProblems = run.report === null ? [] : citationProblems(report);
  const violations = {
    tag: tagProblems.length > 0 ? 1 : 0,
    markdown: mdProblems.length > 0 ? 1 : 0,
    citation: refProblems.length > 0 ? 1 : 0,
  } as const;
  const format = -(violations.tag + violations.markdown + violations.citation);

  return {
    reward: race + lambdaCite * cite + lambdaFormat * format,
    components: { race, cite, format },
    lambdas: { cite: lambdaCite, format: lambdaFormat },
    citations: {
      generated: counts.generated,
      reference: counts.reference,
      valid: counts.valid,
      judged: counts.citations,
    },
    violations,
    problems: [...tagProblems, ...mdProblems, ...refProblems],
  };
}
