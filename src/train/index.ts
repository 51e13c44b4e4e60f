/**
 * The training toolkit: the data model of recorded runs and calls, the seeds' rewards, group
 * advantages, curation, training-data exports and benchmark row readers. Everything here is
 * pure (judges and scorers are injected) except the small file readers and writer; see
 * docs/training.md.
 */

export * from "./advantages/dapo-filter.ts";
export * from "./advantages/grpo.ts";
export * from "./advantages/rloo.ts";
export * from "./curation/action-balanced.ts";
export * from "./curation/difficulty-scheduler.ts";
export * from "./curation/dpo-pairs.ts";
export * from "./curation/scored-output.ts";
export * from "./curation/self-sft.ts";
export * from "./curation/smtl-filters.ts";
export * from "./curation/warp-pruning.ts";
export * from "./export/chat-format.ts";
export * from "./export/dpo.ts";
export * from "./export/export-result.ts";
export * from "./export/rl.ts";
export * from "./export/sft.ts";
export * from "./export/verl.ts";
export * from "./export/write.ts";
export * from "./preference-row.ts";
export * from "./question-row.ts";
export * from "./recorded-call.ts";
export * from "./recorded-run.ts";
export * from "./rewards/answer-judge.ts";
export * from "./rewards/citation-reward.ts";
export * from "./rewards/minddr-lambdas.ts";
export * from "./rewards/minddr-report.ts";
export * from "./rewards/minddr-search.ts";
export * from "./rewards/registry.ts";
export * from "./rewards/report-format.ts";
export * from "./rewards/rubric.ts";
export * from "./rewards/rubric-generator.ts";
export * from "./rewards/smtl.ts";
export * from "./rewards/warp.ts";
export * from "./rewards/warp-atomic.ts";
export * from "./rewards/warp-pipeline.ts";
export * from "./rows/benchmark-files.ts";
export * from "./rows/deepconsult.ts";
export * from "./rows/deepresearch-bench.ts";
export * from "./rows/read-file.ts";
export * from "./rows/xbench.ts";
export * from "./run-from-events.ts";
export * from "./run-steps.ts";
export * from "./seeded-random.ts";
