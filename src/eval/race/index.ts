/**
 * RACE (DeepResearch Bench): reference-based, criteria-weighted comparison of a report with a
 * reference report. Loaders and schemas of the benchmark's files, weight matching, the exact
 * scoring, the judge prompt, citation stripping, the full protocol, recompute from stored
 * judgments, summaries and criteria generation.
 */

export * from "./cleaner.ts";
export * from "./criteria-gen.ts";
export * from "./criteria-prompts.ts";
export * from "./jsonl.ts";
export * from "./judge-prompt.ts";
export * from "./language.ts";
export * from "./output.ts";
export * from "./py-numbers.ts";
export * from "./recompute.ts";
export * from "./records.ts";
export * from "./runner.ts";
export * from "./scoring.ts";
export * from "./summary.ts";
export * from "./weights.ts";
