/** The LLM layer: model registry, the budgeted client, structured output, prices. */

export * from "./client.ts";
export * from "./errors.ts";
export * from "./json-extract.ts";
export * from "./model-spec.ts";
export * from "./prices.ts";
export * from "./registry.ts";
export * from "./structured.ts";
export * from "./structured-mode.ts";
export * from "./token-estimate.ts";
