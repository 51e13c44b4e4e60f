/**
 * Deep-search QA evaluation: question and answer files, the xbench-DeepSearch loader
 * (decrypted in memory), the answer-equivalence judge and pass@1.
 */

export * from "./answer-judge.ts";
export * from "./csv.ts";
export * from "./question-files.ts";
export * from "./xbench.ts";
