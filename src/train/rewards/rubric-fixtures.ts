/**
 * A seven-item rubric and ratings for the rubric reward tests, with the Eq. 2 scores computed by
 * hand (weights 5, 4, 3, 2, 1, −1, −2; Σw = 12):
 *
 * - ACCEPTED ratings 10, 10, 7, 4, 1, 1, 4 → v = 1, 1, 6/9, 3/9, 0, 0, 3/9;
 *   Σ w·v = 5 + 4 + 2 + 2/3 + 0 − 0 − 2/3 = 11 → S = 11/12.
 * - REJECTED ratings 7, 4, 4, 1, 10, 10, 10 → v = 6/9, 3/9, 3/9, 0, 1, 1, 1;
 *   Σ w·v = 10/3 + 4/3 + 1 + 0 + 1 − 1 − 2 = 11/3 → S = 11/36.
 */

import type { RowRubricItem } from "../question-row.ts";

export const RUBRIC_ITEMS: RowRubricItem[] = [
  { title: "Answers the question", description: "Key Criterion: answers it.", weight: 5 },
  { title: "Explains reasoning", description: "Important Criterion: explains.", weight: 4 },
  { title: "Clear structure", description: "Important Criterion: structured.", weight: 3 },
  { title: "Gives figures", description: "Optional Criterion: figures.", weight: 2 },
  { title: "Concise", description: "Optional Criterion: concise.", weight: 1 },
  { title: "Missing dates", description: "Error Criterion: missing dates.", weight: -1 },
  { title: "Wrong founder", description: "Error Criterion: incorrect founder.", weight: -2 },
];
export const ACCEPTED = "# Accepted report";
export const REJECTED = "# Rejected report";
export const RATINGS: Record<string, number[]> = {
  [ACCEPTED]: [10, 10, 7, 4, 1, 1, 4],
  [REJECTED]: [7, 4, 4, 1, 10, 10, 10],
};
