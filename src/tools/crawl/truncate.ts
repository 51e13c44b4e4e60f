/**
 * Fitting a long page into a token budget by keeping its head and its tail: the opening
 * usually states what the page is about, the end holds conclusions and references. The cut
 * is marked so the model knows text is missing there.
 */

import { estimateTokens } from "../../llm/token-estimate.ts";

/** A possibly shortened page text. */
export interface TruncatedText {
  text: string;
  truncated: boolean;
  /** Characters left out of the middle. */
  omittedChars: number;
}

/** Share of the kept characters taken from the head, by default. */
export const DEFAULT_HEAD_SHARE = 0.7;

/** The marker put where text was left out. */
export function cutMarker(omittedChars: number): string {
  return `\n\n[… ${omittedChars} characters of the page left out here …]\n\n`;
}

/** Moves `index` back (or forward) to a nearby line break or space, within `window` chars. */
function snap(text: string, index: number, direction: -1 | 1, window = 200): number {
  for (const pattern of ["\n", " "]) {
    const found = direction < 0 ? text.lastIndexOf(pattern, index) : text.indexOf(pattern, index);
    if (found >= 0 && Math.abs(found - index) <= window) return direction < 0 ? found : found + 1;
  }
  return index;
}

/**
 * Keeps the head and tail of `text` so that it fits in `maxTokens` (estimated), `headShare` of
 * the kept characters from the head (default 0.7).
 */
export function truncateHeadTail(
  text: string,
  maxTokens: number,
  headShare = DEFAULT_HEAD_SHARE,
): TruncatedText {
  const total = estimateTokens(text);
  if (total <= maxTokens) return { text, truncated: false, omittedChars: 0 };
  const charsPerToken = text.length / total;
  let budget = Math.floor(maxTokens * charsPerToken) - cutMarker(text.length).length;
  for (let attempt = 0; attempt < 20 && budget > 0; attempt++) {
    const headEnd = snap(text, Math.floor(budget * headShare), -1);
    const tailStart = Math.max(headEnd, snap(text, text.length - (budget - headEnd), 1));
    const omittedChars = tailStart - headEnd;
    const out = `${text.slice(0, headEnd).trimEnd()}${cutMarker(omittedChars)}${text.slice(tailStart).trimStart()}`;
    if (estimateTokens(out) <= maxTokens) return { text: out, truncated: true, omittedChars };
    budget = Math.floor(budget * 0.9);
  }
  return { text: cutMarker(text.length).trim(), truncated: true, omittedChars: text.length };
}
