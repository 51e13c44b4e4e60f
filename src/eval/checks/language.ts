/**
 * Language check: how much of a report's prose is in the expected language, each sentence
 * detected with `core/language.ts`.
 */

import { detectLanguage } from "../../core/language.ts";
import { proseUnits, splitSentences } from "./prose.ts";

/** Result of {@link checkLanguage}. */
export interface LanguageCheckResult {
  expected: string;
  /** The language with the most prose. */
  detected: string;
  /**
   * Share of the determinable prose written in `expected`, measured in letters with each CJK
   * character counting 3 (a CJK character carries about as much as three Latin letters); null
   * when no prose could be determined.
   */
  share: number | null;
  /** Size of the prose per language, in the same units as `share`. */
  byLanguage: Record<string, number>;
  /** Prose segments in another language (at most 20), for display. */
  mismatches: Array<{ line: number; language: string; text: string }>;
}

/**
 * How much of the prose of `markdown` (code, tables' markup and the references section left out)
 * is in `expected`. Each sentence is detected on its own; sentences with fewer than 4 CJK characters
 * or 12 letters are too short to tell and are skipped, as are those whose language cannot be
 * told (see {@link detectLanguage}).
 */
export function checkLanguage(markdown: string, expected: string): LanguageCheckResult {
  const byLanguage: Record<string, number> = {};
  const mismatches: LanguageCheckResult["mismatches"] = [];
  const want = expected.toLowerCase().split(/[-_]/)[0] ?? expected;
  for (const unit of proseUnits(markdown)) {
    for (const sentence of splitSentences(unit.text)) {
      const cjk =
        sentence.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ??
        0;
      const letters = sentence.match(/\p{L}/gu)?.length ?? 0;
      if (cjk < 4 && letters < 12) continue;
      const language = detectLanguage(sentence);
      if (language === "und") continue;
      byLanguage[language] = (byLanguage[language] ?? 0) + cjk * 3 + (letters - cjk);
      if (language !== want && mismatches.length < 20) {
        mismatches.push({ line: unit.line, language, text: sentence.slice(0, 160) });
      }
    }
  }
  const total = Object.values(byLanguage).reduce((a, b) => a + b, 0);
  const detected = Object.entries(byLanguage).sort((a, b) => b[1] - a[1])[0]?.[0] ?? "und";
  return {
    expected: want,
    detected,
    share: total ? (byLanguage[want] ?? 0) / total : null,
    byLanguage,
    mismatches,
  };
}
