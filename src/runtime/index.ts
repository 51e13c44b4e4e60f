/** The runtime: configuration, run orchestration, cancellation, budgets. */

export * from "./config.ts";
export * from "./config-load.ts";
export * from "./models.ts";
export * from "./run.ts";
export * from "./run-id.ts";
