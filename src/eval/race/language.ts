/**
 * Which prompt language a task uses: the benchmark's `language` field ("zh" or "en"), or,
 * when absent, Chinese if at least a fifth of the task's letters are CJK characters.
 */

/** Prompt languages of the RACE and FACT prompts. */
export type PromptLanguage = "zh" | "en";

/** The prompt language for a task. */
export function promptLanguage(text: string, declared?: string): PromptLanguage {
  if (declared) return declared.toLowerCase().startsWith("zh") ? "zh" : "en";
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return "en";
  const cjk = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  return cjk / letters >= 0.2 ? "zh" : "en";
}
