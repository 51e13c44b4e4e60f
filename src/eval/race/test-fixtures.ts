/**
 * RACE fixtures shared by the tests: criteria with one criterion per dimension and equal
 * weights, and a judge answer scoring both articles per dimension. Test-only; not exported.
 */

import type { RaceCriteria } from "./records.ts";

/** Criteria for task `id` with one criterion per dimension, all weights equal. */
export function raceCriteria(id: number, prompt: string): RaceCriteria {
  return {
    id,
    prompt,
    dimension_weight: {
      comprehensiveness: 0.25,
      insight: 0.25,
      instruction_following: 0.25,
      readability: 0.25,
    },
    criterions: {
      comprehensiveness: [{ criterion: "Breadth", explanation: "covers the ground", weight: 1 }],
      insight: [{ criterion: "Depth", explanation: "explains causes", weight: 1 }],
      instruction_following: [{ criterion: "Scope", explanation: "answers the question", weight: 1 }],
      readability: [{ criterion: "Clarity", explanation: "easy to read", weight: 1 }],
    },
  };
}

type Pair = [article1: number, article2: number];

/** A judge answer for {@link raceCriteria}: (article 1, article 2) scores per dimension. */
export function raceJudgment(c: Pair, i: Pair, f: Pair, r: Pair) {
  const row = (criterion: string, [a, b]: Pair) => [
    { criterion, analysis: "a", article_1_score: a, article_2_score: b },
  ];
  return {
    comprehensiveness: row("Breadth", c),
    insight: row("Depth", i),
    instruction_following: row("Scope", f),
    readability: row("Clarity", r),
  };
}
