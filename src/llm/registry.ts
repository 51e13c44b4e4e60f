/**
 * The model registry: turns `provider:model` strings into AI SDK language models, per role,
 * with per-role overrides and provider credentials from the configuration.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { DossierError } from "../core/errors.ts";
import type { ModelPrice } from "../core/usage.ts";
import {
  formatModelSpec,
  type ModelSpec,
  type ProviderName,
  parseModelSpec,
  type Role,
} from "./model-spec.ts";
import { priceFor } from "./prices.ts";
import { PROVIDER_STRUCTURED_OUTPUT, type StructuredOutputMode } from "./structured-mode.ts";

/** Base URL used for `ollama:` models unless one is configured. */
export const OLLAMA_BASE_URL = "http://localhost:11434/v1";

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
      return { role, spec, name, model, price: priceFor(spec, options.prices), structuredOutput };
    },
  };
}

function buildModel(spec: ModelSpec, options: ModelRegistryOptions): LanguageModel {
  const key = options.providerKeys?.[spec.provider] ?? options.apiKey;
  const baseURL = options.baseUrl;
  const fetch = options.fetch;
  switch (spec.provider) {
    case "openai":
      return createOpenAI({ apiKey: requireKey(spec, key), baseURL, fetch })(spec.modelId);
    case "anthropic":
      return createAnthropic({ apiKey: requireKey(spec, key), baseURL, fetch })(spec.modelId);
    case "google":
      return createGoogleGenerativeAI({ apiKey: requireKey(spec, key), baseURL, fetch })(spec.modelId);
    case "openai-compatible": {
      if (!baseURL) {
        throw new DossierError(
          "PROVIDER_NOT_CONFIGURED",
          `model "${formatModelSpec(spec)}" needs a base URL: set DOSSIER_BASE_URL (e.g. http://localhost:8000/v1 for vLLM)`,
          { details: { provider: spec.provider, setting: "DOSSIER_BASE_URL" } },
        );
      }
      return compatible("openai-compatible", spec.modelId, baseURL, key, fetch);
    }
    case "ollama":
      return compatible("ollama", spec.modelId, baseURL ?? OLLAMA_BASE_URL, key, fetch);
  }
}

function compatible(
  name: string,
  modelId: string,
  baseURL: string,
  apiKey: string | undefined,
  fetch: typeof globalThis.fetch | undefined,
): LanguageModel {
  // Structured outputs on: schema calls send `response_format: { type: "json_schema" }`, which
  // vLLM, SGLang, llama.cpp and Ollama understand; a server that rejects it demotes the model.
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
