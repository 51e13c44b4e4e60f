/**
 * Process metrics of a run from its event log, their summary table, and plain-text table
 * helpers shared by the evaluation commands.
 */

export * from "./critical-chain.ts";
export * from "./process-format.ts";
export * from "./process-metrics.ts";
export * from "./text-table.ts";
export * from "./timed-calls.ts";
export * from "./tool-calls.ts";
