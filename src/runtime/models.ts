/**
 * Building the model registry from the configuration.
 */

import type { LanguageModel } from "ai";
import { createModelRegistry, type ModelRegistry } from "../llm/registry.ts";
import type { Config } from "./config.ts";

/** The model registry the configuration describes; `models` injects ready-made models (tests). */
export function registryFromConfig(
  config: Config,
  extra: { models?: Readonly<Record<string, LanguageModel>>; fetch?: typeof globalThis.fetch } = {},
): ModelRegistry {
  return createModelRegistry({
    defaultModel: config.model,
    roleModels: config.models,
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    providerKeys: config.providerKeys,
    prices: config.prices,
    structuredOutput: config.structuredOutput,
    contextWindows: config.contextWindows,
    models: extra.models,
    fetch: extra.fetch,
  });
}
