/**
 * Word segmentation shared by every analyzer (analyzer.ts), identical at index and at query
 * time: NFKC normalisation, lower-casing, typographic apostrophes (`’`, `＇`) made ASCII, then
 * Unicode word segmentation with `Intl.Segmenter` — UAX #29 word boundaries, the rules Lucene's
 * StandardTokenizer follows, so `it's`, `3.14` and `e.g` stay one word and `e-mail` is two;
 * Chinese and Japanese are split into dictionary words. Only word-like segments are kept.
 */

import { segmenter } from "../../core/segmenter.ts";

/** Bumped whenever segmentation changes: a corpus indexed with another version is rebuilt. */
export const TOKENIZER_VERSION = 2;

/** Tokens longer than this (hashes, base64 blobs) are dropped. */
export const MAX_TOKEN_LENGTH = 64;

const APOSTROPHES = /[\u2019\uFF07]/g;

/** The words of `text`, normalised and lower-cased, in order, with repeats (no stemming, no stopwords). */
export function tokenize(text: string): string[] {
  const normalised = text.normalize("NFKC").toLowerCase().replace(APOSTROPHES, "'");
  const tokens: string[] = [];
  for (const segment of segmenter("word", "und").segment(normalised)) {
    if (segment.isWordLike && segment.segment.length <= MAX_TOKEN_LENGTH) tokens.push(segment.segment);
  }
  return tokens;
}

/** Term frequencies of a token list. */
export function termFrequencies(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
