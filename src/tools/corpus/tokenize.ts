/**
 * The corpus tokenizer, used identically at index and at query time: NFKC normalisation,
 * lower-casing, Unicode word segmentation with `Intl.Segmenter` (which splits Chinese and
 * Japanese into dictionary words), then each word-like segment split into runs of letters,
 * marks and digits, so punctuation inside a segment (`learning's`, `3.14`) separates tokens.
 */

/** Bumped whenever tokenisation changes: a corpus indexed with another version is rebuilt. */
export const TOKENIZER_VERSION = 1;

/** Tokens longer than this (hashes, base64 blobs) are dropped. */
export const MAX_TOKEN_LENGTH = 64;

const segmenter = new Intl.Segmenter("und", { granularity: "word" });
const RUN = /[\p{L}\p{M}\p{N}\p{Co}]+/gu;

/** The tokens of `text`, in order, with repeats. */
export function tokenize(text: string): string[] {
  const normalised = text.normalize("NFKC").toLowerCase();
  const tokens: string[] = [];
  for (const segment of segmenter.segment(normalised)) {
    if (!segment.isWordLike) continue;
    for (const match of segment.segment.matchAll(RUN)) {
      const token = match[0];
      if (token.length <= MAX_TOKEN_LENGTH) tokens.push(token);
    }
  }
  return tokens;
}

/** Term frequencies of a token list. */
export function termFrequencies(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
