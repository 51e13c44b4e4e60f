/**
 * Query-specific rubrics: types, validation and repair, generation, per-item judging and the
 * score formula; plus the concurrent judge-call helper other evaluators use.
 */

export * from "./judge-call.ts";
export * from "./judge-client.ts";
export * from "./rubric-generate.ts";
export * from "./rubric-judge.ts";
export * from "./rubric-prompts.ts";
export * from "./rubric-repair.ts";
export * from "./rubric-score.ts";
export * from "./rubric-types.ts";
