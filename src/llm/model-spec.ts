/**
 * `provider:model` strings: parsing and the list of providers and roles.
 */

import { DossierError } from "../core/errors.ts";

/** Providers a model string may name. */
export const PROVIDERS = ["openai", "anthropic", "google", "openai-compatible", "ollama"] as const;
/** A provider a model string may name. */
export type ProviderName = (typeof PROVIDERS)[number];

/**
 * Roles that may use different models (`DOSSIER_MODEL_<ROLE>`). `default` is the fallback for
 * every role without its own setting.
 */
export const ROLES = [
  "default",
  "router",
  "planner",
  "searcher",
  "reader",
  "critic",
  "rubricer",
  "writer",
  "state",
  "judge",
] as const;
/** A role that may use its own model. */
export type Role = (typeof ROLES)[number];

/** A parsed model string. */
export interface ModelSpec {
  provider: ProviderName;
  /** The provider's model id; may itself contain colons (`ollama:llama3.1:8b`). */
  modelId: string;
}

/** The expected form, for error messages. */
export const MODEL_SPEC_FORM =
  "provider:model (provider one of openai, anthropic, google, openai-compatible, ollama; e.g. openai:gpt-4o-mini)";

/** Parses `provider:model`; throws MODEL_SPEC_INVALID naming the expected form. */
export function parseModelSpec(value: string): ModelSpec {
  const text = value.trim();
  const colon = text.indexOf(":");
  const provider = colon > 0 ? text.slice(0, colon).toLowerCase() : "";
  const modelId = colon > 0 ? text.slice(colon + 1).trim() : "";
  if (!(PROVIDERS as readonly string[]).includes(provider) || !modelId) {
    throw new DossierError("MODEL_SPEC_INVALID", `"${value}" is not a model; expected ${MODEL_SPEC_FORM}`, {
      details: { value },
    });
  }
  return { provider: provider as ProviderName, modelId };
}

/** True when `value` parses as a model string. */
export function isModelSpec(value: string): boolean {
  try {
    parseModelSpec(value);
    return true;
  } catch {
    return false;
  }
}

/** The canonical string of a spec. */
export function formatModelSpec(spec: ModelSpec): string {
  return `${spec.provider}:${spec.modelId}`;
}
