/**
 * The language a report is written in, and the instructions that make writers use it. Which
 * language a question is in is told by `core/language.ts`.
 */

import { reportLabels } from "../core/report-labels.ts";

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

/** A fixed report label in `language`, English when there is no translation (core/report-labels.ts). */
export function reportLabel(
  kind: "references" | "conclusion" | "overview" | "noMatches",
  language: string,
): string {
  return reportLabels(language)[kind];
}
