/**
 * The training toolkit (`dossier/train`): the data model of recorded runs and calls (and their
 * decoding from a run's log), the seeds' rewards, group advantages, curation, training-data
 * exports and benchmark row readers — pure, judges and scorers injected — plus the learning
 * loop's runners: group rollouts, atomic-skill rollouts, scoring a rollouts folder with judges behind a model, and
 * exporting it; see docs/training.md.
 */

// First: an unsupported Node is refused with a clear message, not a module resolution error.
import "../core/node-check.ts";

export * from "./advantages/dapo-filter.ts";
export * from "./advantages/grpo.ts";
export * from "./advantages/rloo.ts";
export * from "./atomic/atomic-actions.ts";
export * from "./atomic/atomic-rollouts.ts";
export * from "./atomic/call-sampler.ts";
export * from "./atomic/teacher-states.ts";
export * from "./calls-from-events.ts";
export * from "./curation/action-balanced.ts";
export * from "./curation/difficulty-scheduler.ts";
export * from "./curation/dpo-pairs.ts";
export * from "./curation/scored-output.ts";
export * from "./curation/self-sft.ts";
export * from "./curation/smtl-filters.ts";
export * from "./curation/unforced-decision.ts";
export * from "./curation/warp-pruned-run.ts";
export * from "./curation/warp-pruning.ts";
export * from "./export/chat-format.ts";
export * from "./export/dpo.ts";
export * from "./export/export-result.ts";
export * from "./export/export-rollouts.ts";
export * from "./export/rl.ts";
export * from "./export/sft.ts";
export * from "./export/tokens.ts";
export * from "./export/tokens-parquet.ts";
export * from "./export/trained-run.ts";
export * from "./export/verl.ts";
export * from "./export/write.ts";
export * from "./judges/llm-judges.ts";
export * from "./judges/pipeline-judge.ts";
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
export * from "./rewards/warp-atomic-sample.ts";
export * from "./rewards/warp-pipeline.ts";
export * from "./rollouts/rollout-dir.ts";
export * from "./rollouts/rollout-plan.ts";
export * from "./rollouts/run-rollouts.ts";
export * from "./rows/benchmark-files.ts";
export * from "./rows/deepconsult.ts";
export * from "./rows/deepresearch-bench.ts";
export * from "./rows/read-file.ts";
export * from "./rows/rows-file.ts";
export * from "./rows/xbench.ts";
export * from "./run-from-events.ts";
export * from "./run-steps.ts";
export * from "./score/reward-file.ts";
export * from "./score/score-runs.ts";
export * from "./seeded-random.ts";
export * from "./tokens/call-tokens.ts";
export * from "./tokens/checkpoint-tokenizer.ts";
export * from "./tokens/segments.ts";
export * from "./tokens/token-record.ts";
