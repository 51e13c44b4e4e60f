/**
 * Answer judges: injected async functions that decide whether a response's final answer is
 * correct against the reference answer, with a rationale (MindDR §5.2 ORM, smtl §5.2). A judge
 * is usually an LLM behind the evaluation toolkit's answer-equivalence prompt; the rewards only
 * see its verdicts. MindDR aggregates three independent judges by majority vote.
 */

import { DossierError } from "../../core/errors.ts";

/** What a judge is asked about. */
export interface AnswerJudgeInput {
  question: string;
  /** The reference answer. */
  reference: string;
  /** The response whose final answer is judged. */
  response: string;
}

/** A judge's binary verdict with its rationale. */
export interface BinaryVerdict {
  correct: boolean;
  rationale: string;
}

/** A judge of answer correctness. */
export type AnswerJudge = (input: AnswerJudgeInput) => Promise<BinaryVerdict>;

/** The majority of an odd number of verdicts, and the verdicts. */
export interface MajorityVerdict {
  correct: boolean;
  votes: BinaryVerdict[];
}

/**
 * Asks every judge at once and takes the majority (strictly more than half correct). The
 * number of judges must be odd so that there is no tie (MindDR uses 3). A judge that fails
 * rejects the whole verdict: the caller retries rather than counting a missing vote.
 */
export async function majorityVerdict(
  judges: readonly AnswerJudge[],
  input: AnswerJudgeInput,
): Promise<MajorityVerdict> {
  if (judges.length === 0 || judges.length % 2 === 0)
    throw new DossierError(
      "INPUT_INVALID",
      `a majority vote needs an odd number of judges, got ${judges.length}`,
    );
  const votes = await Promise.all(judges.map((judge) => judge(input)));
  const yes = votes.filter((v) => v.correct).length;
  return { correct: yes * 2 > votes.length, votes };
}
