/**
 * The test kit: scripted models, fake servers and clocks for testing Dossier and code built
 * on it without network access.
 */

export * from "./cli-io.ts";
export * from "./fake-openai/index.ts";
export * from "./fake-search/index.ts";
export * from "./fake-web/index.ts";
export * from "./scripted/clocks.ts";
export * from "./scripted/harness.ts";
export * from "./scripted/scripted-model.ts";
