/**
 * The language a report is written in, and the instructions that make writers use it. Which
 * language a question is in is told by `core/language.ts`.
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

/** English language names, built on first use (its ICU data is not loaded with the module). */
let display: Intl.DisplayNames | undefined;

/** English display name of a language code ("Polish" for `pl`); the code itself when unknown. */
export function languageName(code: string): string {
  if (NAMES[code]) return NAMES[code];
  try {
    display ??= new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });
    return display.of(code) ?? code;
  } catch {
    return code;
  }
}

/** The instruction telling a writer which language to write in. */
export function languageInstruction(code: string): string {
  const english = `Write everything in ${languageName(code)}.`;
  return NATIVE[code] ? `${NATIVE[code]}\n${english}` : english;
}

/** Fixed labels a report uses, by language. */
const LABELS = {
  references: {
    en: "References",
    zh: "参考文献",
    ja: "参考文献",
    ko: "참고 문헌",
    de: "Quellen",
    fr: "Références",
    es: "Referencias",
  },
  conclusion: {
    en: "Conclusion",
    zh: "结论",
    ja: "結論",
    ko: "결론",
    de: "Fazit",
    fr: "Conclusion",
    es: "Conclusión",
  },
  overview: {
    en: "Overview",
    zh: "概述",
    ja: "概要",
    ko: "개요",
    de: "Überblick",
    fr: "Vue d'ensemble",
    es: "Resumen",
  },
  noMatches: {
    en: "No passage of your documents matches the question.",
    zh: "在您的文档中没有找到与该问题相关的段落。",
  },
} satisfies Record<string, Record<string, string> & { en: string }>;

/** A fixed report label in `language`, English when there is no translation. */
export function reportLabel(kind: keyof typeof LABELS, language: string): string {
  const labels: Record<string, string> = LABELS[kind];
  return labels[language] ?? LABELS[kind].en;
}
