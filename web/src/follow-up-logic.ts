/**
 * What the follow-up box reads and shows: the follow-ups of a run among the listed runs (a
 * follow-up's options name the run it is about), the answer split into text and citation
 * numbers, and where each number links (the report's References entry when the report has that
 * number, else the source's own http(s) address).
 */

import type { RunView } from "./api.ts";

/** The strategy of follow-up runs. */
export const FOLLOW_UP_STRATEGY = "follow-up";

/** A citation of a follow-up answer, as `POST /v1/ask` returns it. */
export interface FollowUpCitation {
  number: number;
  title: string;
  locator: string;
}

/** A search the follow-up made. */
export interface FollowUpSearchView {
  query: string;
  ok: boolean;
  results: number;
}

/** The answer of `POST /v1/ask` with `about`. */
export interface FollowUpAnswer {
  runId: string;
  status: string;
  answer: string;
  citations: FollowUpCitation[];
  about?: string;
  fromRunEvidence?: boolean;
  searches?: FollowUpSearchView[];
  stopReason?: string;
}

/** The run a follow-up run is about, or null for any other run. */
export function parentOf(run: Pick<RunView, "strategy"> & { options?: unknown }): string | null {
  if (run.strategy !== FOLLOW_UP_STRATEGY) return null;
  const about = (run.options as { strategyOptions?: { about?: unknown } } | undefined)?.strategyOptions
    ?.about;
  return typeof about === "string" ? about : null;
}

/** The follow-ups of `runId` among `runs`, oldest first. */
export function followUpsOf(runs: readonly RunView[], runId: string): RunView[] {
  return runs.filter((r) => parentOf(r) === runId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** A piece of an answer: text, or a bracket of citation numbers. */
export type AnswerPiece = { text: string } | { numbers: number[] };

/** Splits an answer into its text and its citation brackets (`[1]`, `[1, 3]`). */
export function answerPieces(answer: string): AnswerPiece[] {
  const pieces: AnswerPiece[] = [];
  let at = 0;
  for (const m of answer.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    if (m.index > at) pieces.push({ text: answer.slice(at, m.index) });
    pieces.push({ numbers: m[1]!.split(",").map((n) => Number(n.trim())) });
    at = m.index + m[0].length;
  }
  if (at < answer.length) pieces.push({ text: answer.slice(at) });
  return pieces;
}

/** The http(s) address of a locator, or null (a local path has none). */
export function httpUrl(locator: string): string | null {
  return /^https?:\/\//i.test(locator) ? locator : null;
}

/**
 * Where citation `n` links: the report's References entry (`#ref-n`) when the report has that
 * number, else the cited source's http(s) address, else nowhere.
 */
export function citationHref(
  n: number,
  reportNumbers: ReadonlySet<number>,
  citations: readonly FollowUpCitation[],
): string | null {
  if (reportNumbers.has(n)) return `#ref-${n}`;
  const c = citations.find((x) => x.number === n);
  return c ? httpUrl(c.locator) : null;
}
