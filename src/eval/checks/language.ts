/**
 * Language check: which language a text is in (by script, then by stopwords for Latin-script
 * languages), and how much of a report's prose is in the expected language.
 */

import { proseUnits, splitSentences } from "./prose.ts";

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
  "ar",
  "el",
  "he",
  "hi",
  "th",
] as const;

const STOPWORDS: Record<string, string[]> = {
  en: "the of and to in is that for it with as was on are be by this have from or an which not but they their has were will been would can more also its than these".split(
    " ",
  ),
  de: "der die das und ist nicht zu den von mit sich des auf für im dem ein eine einer auch es an als wird werden sind bei oder aus nach wie zum zur über durch".split(
    " ",
  ),
  fr: "le la les et des est une un du que dans pour qui pas sur au par plus avec ce sont il elle ont aux cette mais ou leur été être nous".split(
    " ",
  ),
  es: "el la los las y de que en un una es por con para del se no su al lo como más pero sus le ya o este son fue ha está muy también entre".split(
    " ",
  ),
  pt: "o a os as e de que em um uma é do da dos das para com não se no na por mais ao pelo pela são foi ser também está seu sua entre".split(
    " ",
  ),
  it: "il la le lo gli e di che in un una è per con non si del della dei delle al alla sono più come anche ma nel nella ha questo questa".split(
    " ",
  ),
  nl: "de het een en van in is dat op te zijn voor met die niet aan er ook als bij door maar om dan naar heeft worden wordt deze".split(
    " ",
  ),
};

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
  cyrillic: "ru",
  arabic: "ar",
  greek: "el",
  hebrew: "he",
  devanagari: "hi",
  thai: "th",
};

/** A language guess with how it was made. */
export interface LanguageGuess {
  /** ISO 639-1 code, or "und" when the text is too short or has no letters. */
  language: string;
  /** 0..1: share of the winning script (times the stopword margin for Latin languages). */
  confidence: number;
}

function latinLanguage(text: string): { language: string; confidence: number } {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const scores = Object.entries(STOPWORDS).map(([language, list]) => {
    const set = new Set(list);
    return { language, hits: words.filter((w) => set.has(w)).length };
  });
  // Diacritics that only some languages use break near ties.
  const bonus: Record<string, RegExp> = {
    de: /[äöüß]/g,
    es: /[ñ¿¡]/g,
    pt: /[ãõ]/g,
    fr: /[èêëçœ]/g,
    it: /[ìò]/g,
  };
  for (const s of scores) s.hits += (text.toLowerCase().match(bonus[s.language] ?? /$^/g)?.length ?? 0) * 0.5;
  scores.sort((a, b) => b.hits - a.hits);
  const [best, second] = scores;
  if (!best || best.hits === 0) return { language: "en", confidence: 0.2 };
  return { language: best.language, confidence: (best.hits - (second?.hits ?? 0)) / best.hits };
}

/** Guesses the language of `text` with a confidence. Very short texts (under 3 letters) are "und". */
export function guessLanguage(text: string): LanguageGuess {
  const counts = SCRIPTS.map(([name, regex]) => ({ name, n: text.match(regex)?.length ?? 0 }));
  const get = (name: string) => counts.find((c) => c.name === name)!.n;
  // One CJK character carries about as much as a short word; Latin letters are weighed per word.
  const weights: Record<string, number> = { han: 1, kana: 1, hangul: 1, latin: 0.3 };
  const weighted = counts.map((c) => ({ name: c.name, w: c.n * (weights[c.name] ?? 0.3) }));
  const total = weighted.reduce((sum, c) => sum + c.w, 0);
  if (counts.reduce((sum, c) => sum + c.n, 0) < 3 || total === 0) return { language: "und", confidence: 0 };
  const kana = get("kana");
  const han = get("han");
  const hangul = get("hangul");
  const cjk = kana + han + hangul;
  if (cjk * 1 >= total * 0.5) {
    const share = cjk / total;
    if (hangul >= cjk * 0.5) return { language: "ko", confidence: share };
    if (kana >= cjk * 0.1) return { language: "ja", confidence: share };
    return { language: "zh", confidence: share };
  }
  weighted.sort((a, b) => b.w - a.w);
  const top = weighted[0]!;
  const share = top.w / total;
  if (top.name === "latin") {
    const latin = latinLanguage(text);
    return { language: latin.language, confidence: share * latin.confidence };
  }
  const scripted = SCRIPT_LANGUAGE[top.name];
  if (scripted) return { language: scripted, confidence: share };
  return { language: "und", confidence: 0 };
}

/** The ISO 639-1 code of the language of `text` ("und" when it cannot tell). */
export function detectLanguage(text: string): string {
  return guessLanguage(text).language;
}

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
 * or 12 letters are too short to tell and are skipped.
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
