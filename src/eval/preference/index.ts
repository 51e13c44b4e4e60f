/**
 * Preference metrics: accuracy (AUC) and paired Cohen's d of any scorer over (query, preferred,
 * rejected) triples; file formats; rubric, pointwise and pairwise judge scorers.
 */

export * from "./preference-files.ts";
export * from "./preference-metrics.ts";
export * from "./preference-scorers.ts";
