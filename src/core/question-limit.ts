/**
 * One limit on the length of a research question for every way in — the CLI, batch files,
 * rollouts, the library and the HTTP API: a question is a question, not a document (put
 * documents in a folder and give it with `--docs`).
 */

/** Characters a research question may hold at most. */
export const MAX_QUESTION_CHARS = 8000;

/** The message for a question over the limit. */
export function questionTooLong(length: number): string {
  return `the question is longer than ${MAX_QUESTION_CHARS} characters (${length}); give documents with --docs instead`;
}
