/**
 * The language a report is written in, and the instructions that make writers use it.
 */

const NAMES: Record<string, string> = {
  en: "English",
  zh: "Chinese (Simplified)",
  ja: "Japanese",
  ko: "Korean",
  de: "German",
  fr: "French",
  es: "Spanish",
  pt: "Portuguese",
  it: "Italian",
  ru: "Russian",
};

/** Native-language instruction lines, so a model sees the target language in its instructions. */
const NATIVE: Record<string, string> = {
  zh: "请全部使用简体中文撰写（包括标题、正文和表格），引用标记保持原样。",
  ja: "すべて日本語で書いてください（見出し・本文・表を含む）。引用記号はそのまま残してください。",
  ko: "제목, 본문, 표를 포함하여 모두 한국어로 작성하십시오. 인용 표시는 그대로 두십시오.",
};

/** Display name of a language code. */
export function languageName(code: string): string {
  return NAMES[code] ?? code;
}

/** The instruction telling a writer which language to write in. */
export function languageInstruction(code: string): string {
  const english = `Write everything in ${languageName(code)}.`;
  return NATIVE[code] ? `${NATIVE[code]}\n${english}` : english;
}

const CJK = /[\u4e00-\u9fff]/g;
const KANA = /[\u3040-\u30ff]/g;
const HANGUL = /[\uac00-\ud7af]/g;

/**
 * A quick guess of a query's language by script (Chinese, Japanese, Korean), else English.
 * Used to resolve `language: auto`.
 */
export function guessQueryLanguage(text: string): string {
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  const kana = count(KANA);
  const hangul = count(HANGUL);
  const han = count(CJK);
  if (kana > 0) return "ja";
  if (hangul > han && hangul > 0) return "ko";
  if (han > 0) return "zh";
  return "en";
}
