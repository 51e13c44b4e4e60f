/**
 * Report quality checks usable on any Markdown report: table validation and repair, heading
 * hierarchy, temporal errors (regex stage and optional model verification), language share.
 * The report pipeline and `dossier eval temporal|tables` use the same code.
 */

export {
  DETECTABLE_LANGUAGES,
  detectLanguage,
  guessLanguage,
  type LanguageGuess,
} from "../../core/language.ts";
export {
  isReferencesTitle,
  lineEnding,
  type MarkdownLine,
  markdownLines,
  parseHeading,
} from "../../core/markdown.ts";
export * from "./headings.ts";
export * from "./language.ts";
export * from "./prose.ts";
export * from "./report-checks.ts";
export * from "./table-parse.ts";
export * from "./tables.ts";
export * from "./temporal.ts";
export * from "./temporal-cues.ts";
export * from "./temporal-dates.ts";
export * from "./temporal-verify.ts";
