/**
 * Analyzers: how text becomes index terms, the same at index and at query time. Both start
 * from the shared word segmentation (tokenize.ts: NFKC, lower case, UAX #29 words, Chinese and
 * Japanese split into dictionary words by `Intl.Segmenter`).
 *
 * - `english` (the default for new corpora) — as Lucene's EnglishAnalyzer and Anserini's
 *   default: on words written in the Latin script, the possessive `'s` is removed, Lucene's
 *   English stopwords are dropped and the rest is reduced by the Porter stemmer (the `stemmer`
 *   package, Porter's reference algorithm as in Lucene's PorterStemFilter). Words in other
 *   scripts (Chinese, Japanese, Cyrillic, Greek, …) are kept as segmented.
 * - `standard` — the words as segmented: no stopwords, no stemming (any language).
 *
 * A corpus records its analyzer in its metadata; changing it rebuilds the index.
 */

import { stemmer } from "stemmer";
import { tokenize } from "./tokenize.ts";

/** The analyzers a corpus can use. */
export const ANALYZER_NAMES = ["english", "standard"] as const;
/** The name of an analyzer. */
export type AnalyzerName = (typeof ANALYZER_NAMES)[number];
/** The analyzer of a new corpus. */
export const DEFAULT_ANALYZER: AnalyzerName = "english";

/** True when `value` names an analyzer. */
export function isAnalyzerName(value: unknown): value is AnalyzerName {
  return typeof value === "string" && (ANALYZER_NAMES as readonly string[]).includes(value);
}

/** Lucene's English stopword set (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`), 33 words. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be but by for if in into is it no not of on or such " +
    "that the their then there these they this to was will with"
  ).split(" "),
);

/** Turns text into index terms. */
export interface Analyzer {
  readonly name: AnalyzerName;
  /** The terms of `text`, in order, with repeats. */
  analyze(text: string): string[];
}

/** A letter of any script but Latin. */
const NON_LATIN_LETTER = /[\p{L}--\p{Script=Latin}]/v;
const STEM_CACHE_LIMIT = 200_000;
const stems = new Map<string, string>();

/** The Porter stem of a lower-case word (cached). */
export function porterStem(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
    stems.set(word, stem);
  }
  return stem;
}

/** The English term of one segmented word, or undefined for a stopword. */
export function englishTerm(word: string): string | undefined {
  if (NON_LATIN_LETTER.test(word)) return word;
  const base = word.endsWith("'s") ? word.slice(0, -2) : word;
  if (base === "" || ENGLISH_STOPWORDS.has(base)) return undefined;
  return porterStem(base);
}

const english: Analyzer = {
  name: "english",
  analyze(text) {
    const terms: string[] = [];
    for (const word of tokenize(text)) {
      const term = englishTerm(word);
      if (term !== undefined) terms.push(term);
    }
    return terms;
  },
};

const standard: Analyzer = { name: "standard", analyze: tokenize };

/** The analyzer called `name`. */
export function getAnalyzer(name: AnalyzerName): Analyzer {
  return name === "english" ? english : standard;
}
