/** The core domain: pure types and logic, no I/O. */

export * from "./budget.ts";
export * from "./citations.ts";
export * from "./clock.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./evidence-registry.ts";
export * from "./ids.ts";
export * from "./journal.ts";
export * from "./outline.ts";
export * from "./plan-edit.ts";
export * from "./plan-graph.ts";
export * from "./plan-review-point.ts";
export * from "./report.ts";
export * from "./report-formats.ts";
export * from "./retry.ts";
export * from "./review-plan.ts";
export * from "./run.ts";
export * from "./run-options.ts";
export * from "./source.ts";
export * from "./text.ts";
export * from "./url.ts";
export * from "./usage.ts";
