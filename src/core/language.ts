/**
 * Which language a text is written in, as an ISO 639-1 code. Pure, no I/O.
 *
 * - Chinese, Japanese and Korean are told by script: on short text, counting Han, kana and
 *   Hangul characters is more reliable than any statistical model.
 * - Arabic, Greek, Hebrew, Devanagari (Hindi) and Thai are told by script as well.
 * - Latin and Cyrillic text is scored by franc-min's trigram models, restricted to
 *   {@link TRIGRAM_LANGUAGES}. A Latin-script verdict other than English must also be clearly
 *   apart from English (trigram margin) and hold one of that language's function words:
 *   trigrams alone take many short English questions full of technical terms for Spanish,
 *   Portuguese or French. A text that fails this is undetermined, never silently English.
 */

import { functionWordHits } from "./function-words.ts";
import { lazyModule } from "./lazy-module.ts";

/** The languages franc-min's trigrams decide between, by their ISO 639-3 code. */
export const TRIGRAM_LANGUAGES: Readonly<Record<string, string>> = {
  eng: "en",
  deu: "de",
  fra: "fr",
  spa: "es",
  por: "pt",
  ita: "it",
  nld: "nl",
  rus: "ru",
  ukr: "uk",
};

/** Languages {@link detectLanguage} can tell apart ("und" = undetermined). */
export const DETECTABLE_LANGUAGES = [
  "en",
  "de",
  "fr",
  "es",
  "pt",
  "it",
  "nl",
  "zh",
  "ja",
  "ko",
  "ru",
  "uk",
  "ar",
  "el",
  "he",
  "hi",
  "th",
] as const;

/** A language guess with how sure it is. */
export interface LanguageGuess {
  /** ISO 639-1 code, or "und" when the text is too short, has no letters or is ambiguous. */
  language: string;
  /**
   * 0..1: the winning script's share of the letters, times, for a trigram verdict, its margin
   * over the runner-up (one minus the runner-up's normalised franc score).
   */
  confidence: number;
}

/** Fewest letters of a Latin-script text before trigrams decide its language. */
export const MIN_TRIGRAM_LETTERS = 12;
/** Least margin of a Latin-script verdict over English (franc's normalised scores). */
export const MIN_ENGLISH_MARGIN = 0.2;

const SCRIPTS: Array<[string, RegExp]> = [
  ["han", /\p{Script=Han}/gu],
  ["kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/gu],
  ["hangul", /\p{Script=Hangul}/gu],
  ["latin", /\p{Script=Latin}/gu],
  ["cyrillic", /\p{Script=Cyrillic}/gu],
  ["arabic", /\p{Script=Arabic}/gu],
  ["greek", /\p{Script=Greek}/gu],
  ["hebrew", /\p{Script=Hebrew}/gu],
  ["devanagari", /\p{Script=Devanagari}/gu],
  ["thai", /\p{Script=Thai}/gu],
];
const SCRIPT_LANGUAGE: Record<string, string> = {
  arabic: "ar",
  greek: "el",
  hebrew: "he",
  devanagari: "hi",
  thai: "th",
};
const LATIN_CODES = Object.keys(TRIGRAM_LANGUAGES).filter((c) => c !== "rus" && c !== "ukr");
const CYRILLIC_CODES = ["rus", "ukr"];
const UNDETERMINED: LanguageGuess = { language: "und", confidence: 0 };

function scriptCounts(text: string): Record<string, number> {
  return Object.fromEntries(SCRIPTS.map(([name, regex]) => [name, text.match(regex)?.length ?? 0]));
}

/** franc-min, loaded on the first text it scores. */
const franc = lazyModule<typeof import("franc-min")>("franc-min");

/** franc's scores among `only`, as [ISO 639-1, normalised score] best first. */
function trigramScores(text: string, only: string[]): Array<[string, number]> {
  return franc()
    .francAll(text, { minLength: 1, only })
    .filter(([code]) => code in TRIGRAM_LANGUAGES)
    .map(([code, score]) => [TRIGRAM_LANGUAGES[code]!, score]);
}

/** The trigram verdict on a Latin-script text, checked against English (see the module notes). */
function latinGuess(text: string, letters: number): { language: string; margin: number } | null {
  if (letters < MIN_TRIGRAM_LETTERS) return null;
  const scores = trigramScores(text, LATIN_CODES);
  const [best, second] = scores;
  if (!best) return null;
  const margin = 1 - (second?.[1] ?? 0);
  if (best[0] === "en") return { language: "en", margin };
  const english = scores.find(([code]) => code === "en")?.[1] ?? 0;
  if (1 - english < MIN_ENGLISH_MARGIN) return null;
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  return functionWordHits(words, best[0]) > 0 ? { language: best[0], margin } : null;
}

/** Guesses the language of `text` with a confidence. Texts with under 3 letters are "und". */
export function guessLanguage(text: string): LanguageGuess {
  const counts = scriptCounts(text);
  const letters = Object.values(counts).reduce((a, b) => a + b, 0);
  // One CJK character carries about as much as a short word; other letters are weighed per word.
  const weight = (name: string) => (name === "han" || name === "kana" || name === "hangul" ? 1 : 0.3);
  const weighted = Object.entries(counts).map(([name, n]) => ({ name, w: n * weight(name) }));
  const total = weighted.reduce((sum, c) => sum + c.w, 0);
  if (letters < 3 || total === 0) return UNDETERMINED;
  const { kana = 0, han = 0, hangul = 0 } = counts;
  const cjk = kana + han + hangul;
  if (cjk >= total * 0.5) {
    const share = cjk / total;
    if (hangul >= cjk * 0.5) return { language: "ko", confidence: share };
    if (kana >= cjk * 0.1) return { language: "ja", confidence: share };
    return { language: "zh", confidence: share };
  }
  weighted.sort((a, b) => b.w - a.w);
  const top = weighted[0]!;
  const share = top.w / total;
  const scripted = SCRIPT_LANGUAGE[top.name];
  if (scripted) return { language: scripted, confidence: share };
  if (top.name === "cyrillic") {
    const [best, second] = trigramScores(text, CYRILLIC_CODES);
    return best ? { language: best[0], confidence: share * (1 - (second?.[1] ?? 0)) } : UNDETERMINED;
  }
  if (top.name === "latin") {
    const latin = latinGuess(text, counts.latin ?? 0);
    return latin ? { language: latin.language, confidence: share * latin.margin } : UNDETERMINED;
  }
  return UNDETERMINED;
}

/** The ISO 639-1 code of the language of `text` ("und" when it cannot tell). */
export function detectLanguage(text: string): string {
  return guessLanguage(text).language;
}

/**
 * The language of a research question, for `language: auto`. A question with kana, Hangul or
 * Han characters is Japanese, Korean or Chinese by script (any kana: Japanese; more Hangul
 * than Han: Korean; else Chinese), as short mixed questions like "比较 A 和 B" should be. Any
 * other question is detected with {@link guessLanguage}; when that cannot tell (too short,
 * mixed, no letters), the answer is `fallback`.
 */
export function guessQueryLanguage(text: string, fallback = "en"): string {
  const { kana = 0, hangul = 0, han = 0 } = scriptCounts(text);
  if (kana > 0) return "ja";
  if (hangul > han && hangul > 0) return "ko";
  if (han > 0) return "zh";
  const language = detectLanguage(text);
  return language === "und" ? fallback : language;
}
