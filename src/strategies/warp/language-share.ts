/**
 * The seed's language consistency check (AgentCPM-Report, hard mode): a text is in the run's
 * language when its share of CJK characters fits it — more than 60 % for a CJK language, under
 * 1 % for any other. The share is taken over the letters (CJK and Latin) once citation tokens
 * (`[E3]`, `\cite{textid3}`), URLs and inline code are removed. Differences from the seed, on
 * purpose: the language is the run's (a user may ask for a report in another language than the
 * question's), Japanese kana and Korean Hangul count as CJK (the seed counts Chinese ideographs
 * only), and punctuation and other scripts do not dilute the share.
 */

/** Languages whose text is mostly CJK characters. */
export const CJK_LANGUAGES: ReadonlySet<string> = new Set(["zh", "ja", "ko"]);
/** Least CJK share of a text in a CJK language (the seed's 0.6). */
export const MIN_CJK_SHARE = 0.6;
/** Most CJK share of a text in any other language (the seed's 0.01). */
export const MAX_CJK_SHARE_OTHER = 0.01;

const CITATIONS = /[[【［]\s*E\d+(?:\s*[,;，、]\s*E\d+)*\s*[\]】］]|\\\w*cite\w*\{[^}]*\}/giu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const LATIN = /\p{Script=Latin}/gu;

/**
 * The share of CJK characters among the letters of `text` (CJK and Latin), ignoring citation
 * tokens, URLs and code; null when the text has no letters.
 */
export function cjkShare(text: string): number | null {
  const prose = text
    .replace(CITATIONS, " ")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/`[^`]*`/g, " ");
  const cjk = prose.match(CJK)?.length ?? 0;
  const latin = prose.match(LATIN)?.length ?? 0;
  return cjk + latin === 0 ? null : cjk / (cjk + latin);
}

/** True when `text` is written in `language` by the CJK share rule (a text without letters is). */
export function inLanguage(text: string, language: string): boolean {
  const share = cjkShare(text);
  if (share === null) return true;
  return CJK_LANGUAGES.has(language) ? share > MIN_CJK_SHARE : share < MAX_CJK_SHARE_OTHER;
}
