/**
 * Which prompt language a task uses: the benchmark's `language` field ("zh" or "en"), or,
 * when absent, Chinese when `core/language.ts` finds the text Chinese (mostly Han characters),
 * else English.
 */

import { detectLanguage } from "../../core/language.ts";

/** Prompt languages of the RACE and FACT prompts. */
export type PromptLanguage = "zh" | "en";

/** The prompt language for a task. */
export function promptLanguage(text: string, declared?: string): PromptLanguage {
  if (declared) return declared.toLowerCase().startsWith("zh") ? "zh" : "en";
  return detectLanguage(text) === "zh" ? "zh" : "en";
}
