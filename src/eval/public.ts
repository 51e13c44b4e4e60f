/**
 * The evaluation toolkit's public surface, one namespace per protocol.
 */

export * as checks from "./checks/index.ts";
export * as deepsearch from "./deepsearch/index.ts";
export * as fact from "./fact/index.ts";
export * as grounding from "./grounding.ts";
export * as preference from "./preference/index.ts";
export * as processMetrics from "./process/index.ts";
export * as race from "./race/index.ts";
export * as retrieval from "./retrieval-metrics.ts";
export * as rubric from "./rubric/index.ts";
