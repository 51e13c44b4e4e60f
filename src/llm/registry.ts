/**
 * The model registry: turns `provider:model` strings into AI SDK language models, per role,
 * with per-role overrides and provider credentials from the configuration. A provider's SDK is
 * imported when one of its models makes its first call (lazy-model.ts), not before.
 */

import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { DossierError } from "../core/errors.ts";
import type { ModelPrice } from "../core/usage.ts";
import { contextWindowFor } from "./context-window.ts";
import { lazyModel } from "./lazy-model.ts";
import {
  formatModelSpec,
  type ModelSpec,
  type ProviderName,
  parseModelSpec,
  type Role,
} from "./model-spec.ts";
import { createOllamaModel, DEFAULT_OLLAMA_NUM_CTX } from "./ollama.ts";
import { priceFor } from "./prices.ts";
import { PROVIDER_STRUCTURED_OUTPUT, type StructuredOutputMode } from "./structured-mode.ts";

export { OLLAMA_BASE_URL } from "./ollama.ts";

/** The environment variable that holds each hosted provider's key. */
export const PROVIDER_KEY_ENV: Readonly<Record<"openai" | "anthropic" | "google", string>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
};

/** What the registry needs to build models. */
export interface ModelRegistryOptions {
  /** The model of every role without its own (`DOSSIER_MODEL`). */
  defaultModel?: string;
  /** Per-role models (`DOSSIER_MODEL_<ROLE>`). */
  roleModels?: Partial<Record<Role, string>>;
  /** Base URL for openai-compatible and ollama models, or to redirect a hosted provider. */
  baseUrl?: string;
  /** A key used for every provider (`DOSSIER_API_KEY`). */
  apiKey?: string;
  /** Provider keys by provider name (from OPENAI_API_KEY etc.). */
  providerKeys?: Partial<Record<ProviderName, string>>;
  /** Price overrides keyed `provider:model`. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Structured-output mode per `provider:model` (`native` or `prompt`); unset models use their
   * provider's default ({@link PROVIDER_STRUCTURED_OUTPUT}).
   */
  structuredOutput?: Readonly<Record<string, StructuredOutputMode>>;
  /**
   * Context windows (tokens) by `provider:model`, over the known ones: an `ollama:` model's is
   * sent as `num_ctx` (default {@link DEFAULT_OLLAMA_NUM_CTX}).
   */
  contextWindows?: Readonly<Record<string, number>>;
  /** A fetch to use for provider HTTP calls. */
  fetch?: typeof globalThis.fetch;
  /** Ready-made models by `provider:model` string (tests, embedding callers). Checked first. */
  models?: Readonly<Record<string, LanguageModel>>;
}

/** A model ready for a role. */
export interface ResolvedModel {
  role: Role;
  spec: ModelSpec;
  /** `provider:model`. */
  name: string;
  model: LanguageModel;
  /** Null when unknown. */
  price: ModelPrice | null;
  /** How structured answers are asked for. */
  structuredOutput: StructuredOutputMode;
  /** The context window in tokens (configured, sent to Ollama, or known); null when unknown. */
  contextWindow: number | null;
}

/** Resolves models per role. */
export interface ModelRegistry {
  /** The model string a role uses, or null when none is configured. */
  specFor(role: Role): string | null;
  /** The model of a role; throws MODEL_NOT_CONFIGURED or PROVIDER_NOT_CONFIGURED. */
  forRole(role: Role): ResolvedModel;
  /** True when every role has a model. */
  configured(): boolean;
  /**
   * Remembers that model `name` (`provider:model`) rejected schema-constrained output: from now
   * on its structured answers are asked for in the prompt only.
   */
  demoteToPromptOutput(name: string): void;
}

/** Creates a registry. Model strings are validated immediately; providers are built lazily. */
export function createModelRegistry(options: ModelRegistryOptions): ModelRegistry {
  for (const value of [options.defaultModel, ...Object.values(options.roleModels ?? {})]) {
    if (value) parseModelSpec(value);
  }
  const cache = new Map<string, LanguageModel>();
  const demoted = new Set<string>();
  const specFor = (role: Role): string | null => options.roleModels?.[role] ?? options.defaultModel ?? null;

  return {
    specFor,
    configured: () => specFor("default") !== null,
    demoteToPromptOutput: (name) => {
      demoted.add(name);
    },
    forRole(role) {
      const value = specFor(role);
      if (!value) {
        throw new DossierError(
          "MODEL_NOT_CONFIGURED",
          `no model configured for role "${role}": set DOSSIER_MODEL (or DOSSIER_MODEL_${role.toUpperCase()}) to provider:model, e.g. openai:gpt-4o-mini`,
          { details: { role } },
        );
      }
      const spec = parseModelSpec(value);
      const name = formatModelSpec(spec);
      let model = options.models?.[name] ?? cache.get(name);
      if (!model) {
        model = buildModel(spec, options);
        cache.set(name, model);
      }
      const structuredOutput: StructuredOutputMode = demoted.has(name)
        ? "prompt"
        : (options.structuredOutput?.[name] ?? PROVIDER_STRUCTURED_OUTPUT[spec.provider]);
      const contextWindow = contextWindowOf(spec, name, options);
      return {
        role,
        spec,
        name,
        model,
        price: priceFor(spec, options.prices),
        structuredOutput,
        contextWindow,
      };
    },
  };
}

/** The context window of a model: configured, else Ollama's default `num_ctx`, else the table's. */
function contextWindowOf(spec: ModelSpec, name: string, options: ModelRegistryOptions): number | null {
  const configured = options.contextWindows?.[name];
  if (configured !== undefined) return configured;
  return spec.provider === "ollama" ? DEFAULT_OLLAMA_NUM_CTX : contextWindowFor(spec);
}

/** The model of a spec; credentials are checked now, the provider's SDK is imported on first use. */
function buildModel(spec: ModelSpec, options: ModelRegistryOptions): LanguageModel {
  const key = options.providerKeys?.[spec.provider] ?? options.apiKey;
  const baseURL = options.baseUrl;
  const fetch = options.fetch;
  const { modelId } = spec;
  const lazy = (load: () => Promise<LanguageModelV4>) => lazyModel(spec.provider, modelId, load);
  switch (spec.provider) {
    case "openai": {
      const apiKey = requireKey(spec, key);
      return lazy(async () =>
        (await import("@ai-sdk/openai")).createOpenAI({ apiKey, baseURL, fetch })(modelId),
      );
    }
    case "anthropic": {
      const apiKey = requireKey(spec, key);
      return lazy(async () =>
        (await import("@ai-sdk/anthropic")).createAnthropic({ apiKey, baseURL, fetch })(modelId),
      );
    }
    case "google": {
      const apiKey = requireKey(spec, key);
      return lazy(async () =>
        (await import("@ai-sdk/google")).createGoogleGenerativeAI({ apiKey, baseURL, fetch })(modelId),
      );
    }
    case "openai-compatible": {
      if (!baseURL) {
        throw new DossierError(
          "PROVIDER_NOT_CONFIGURED",
          `model "${formatModelSpec(spec)}" needs a base URL: set DOSSIER_BASE_URL (e.g. http://localhost:8000/v1 for vLLM)`,
          { details: { provider: spec.provider, setting: "DOSSIER_BASE_URL" } },
        );
      }
      return lazy(() => compatible("openai-compatible", modelId, baseURL, key, fetch));
    }
    case "ollama": {
      const numCtx = contextWindowOf(spec, formatModelSpec(spec), options) ?? DEFAULT_OLLAMA_NUM_CTX;
      return lazy(() => createOllamaModel({ modelId, baseUrl: baseURL, apiKey: key, numCtx, fetch }));
    }
  }
}

async function compatible(
  name: string,
  modelId: string,
  baseURL: string,
  apiKey: string | undefined,
  fetch: typeof globalThis.fetch | undefined,
): Promise<LanguageModelV4> {
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  // Structured outputs on: schema calls send `response_format: { type: "json_schema" }`, which
  // vLLM, SGLang and llama.cpp understand; a server that rejects it demotes the model.
  return createOpenAICompatible({
    name,
    baseURL,
    apiKey,
    includeUsage: true,
    supportsStructuredOutputs: true,
    fetch,
  })(modelId);
}

function requireKey(spec: ModelSpec, key: string | undefined): string {
  if (key) return key;
  const env = PROVIDER_KEY_ENV[spec.provider as keyof typeof PROVIDER_KEY_ENV];
  throw new DossierError(
    "PROVIDER_NOT_CONFIGURED",
    `model "${formatModelSpec(spec)}" needs an API key: set ${env} (or DOSSIER_API_KEY)`,
    { details: { provider: spec.provider, setting: env } },
  );
}
