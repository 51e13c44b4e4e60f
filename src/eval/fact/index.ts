/**
 * FACT (DeepResearch Bench): how many of a report's citations are backed by the pages they
 * cite. Rule-based triple extraction, per-URL deduplication, the judge prompt, the pipeline
 * with an injected page reader, and the statistics (also from stored validations).
 */

export * from "./dedupe.ts";
export * from "./extract.ts";
export * from "./judge-prompt.ts";
export * from "./records.ts";
export * from "./references.ts";
export * from "./report-input.ts";
export * from "./runner.ts";
export * from "./stats.ts";
