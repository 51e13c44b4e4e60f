/**
 * The lexical grounding check: each cited sentence of a report is compared with the excerpts
 * of the evidence it cites; it counts as supported when enough of its content words occur in
 * those excerpts. The grounded share is supported / cited sentences. A cheap first screen —
 * an LLM judge can verify the sentences it marks unsupported.
 */

import { segmenter } from "../core/segmenter.ts";
import { contentWords } from "../core/text.ts";

/** Share of `sentence`'s content words found in `excerpt` (0..1; 1 for a sentence with no content words). */
export function overlapShare(sentence: string, excerpt: string): number {
  const words = contentWords(sentence);
  if (words.length === 0) return 1;
  const pool = new Set(contentWords(excerpt));
  return words.filter((w) => pool.has(w)).length / words.length;
}

/** One cited sentence and its verdict. */
export interface GroundedSentence {
  sentence: string;
  numbers: number[];
  overlap: number;
  supported: boolean;
}

/** Result of {@link groundingCheck}. */
export interface GroundingResult {
  sentences: GroundedSentence[];
  supported: number;
  /** supported / cited sentences; null when no sentence is cited. */
  share: number | null;
}

const CITE = /\[(\d+(?:, \d+)*)\]/g;

/**
 * Checks every sentence of `body` that carries numbered citations against the excerpts behind
 * those numbers. `threshold` is the share of content words that must occur in the excerpts
 * (default 0.3).
 */
export function groundingCheck(
  body: string,
  excerptsByNumber: ReadonlyMap<number, string>,
  threshold = 0.3,
): GroundingResult {
  const sentences: GroundedSentence[] = [];
  const prose = body.replace(/```[\s\S]*?```/g, " ").replace(/^#+\s.*$/gm, " ");
  // A citation placed after the full stop ("… in 2024. [3] Next …") belongs to the sentence before it.
  const segments: string[] = [];
  for (const { segment } of segmenter("sentence").segment(prose)) {
    const lead = /^\s*(?:\[\d+(?:, \d+)*\]\s*)+/.exec(segment)?.[0];
    if (lead && segments.length > 0) {
      segments[segments.length - 1] += lead;
      const rest = segment.slice(lead.length);
      if (rest.trim()) segments.push(rest);
    } else segments.push(segment);
  }
  for (const segment of segments) {
    const numbers = [...segment.matchAll(CITE)].flatMap((m) => m[1]!.split(", ").map(Number));
    if (numbers.length === 0) continue;
    const text = segment.replace(CITE, " ").replace(/\s+/g, " ").trim();
    const excerpt = [...new Set(numbers)].map((n) => excerptsByNumber.get(n) ?? "").join(" ");
    const overlap = overlapShare(text, excerpt);
    sentences.push({
      sentence: text,
      numbers: [...new Set(numbers)],
      overlap,
      supported: overlap >= threshold,
    });
  }
  const supported = sentences.filter((s) => s.supported).length;
  return { sentences, supported, share: sentences.length ? supported / sentences.length : null };
}
