/**
 * Wiring for tests that run Dossier against scripted models: a model registry whose roles
 * map to scripted models, and an in-memory store.
 */

import type { LanguageModel } from "ai";
import type { ModelPrice } from "../../src/core/usage.ts";
import type { Role } from "../../src/llm/model-spec.ts";
import { createModelRegistry, type ModelRegistry } from "../../src/llm/registry.ts";
import { openSqliteStore } from "../../src/store/sqlite-store.ts";
import type { ScriptedModel } from "./scripted-model.ts";

/** A registry whose `default` (and optionally other roles) are scripted models. */
export function scriptedRegistry(
  models: Partial<Record<Role, ScriptedModel | LanguageModel>>,
  options: { prices?: Record<string, ModelPrice> } = {},
): ModelRegistry {
  const byName: Record<string, LanguageModel> = {};
  const roleModels: Partial<Record<Role, string>> = {};
  for (const [role, m] of Object.entries(models) as [Role, ScriptedModel | LanguageModel][]) {
    const name = `openai-compatible:scripted-${role}`;
    byName[name] =
      typeof m === "object" && m !== null && "model" in m ? (m as ScriptedModel).model : (m as LanguageModel);
    roleModels[role] = name;
  }
  const { default: defaultModel, ...rest } = roleModels;
  return createModelRegistry({ defaultModel, roleModels: rest, models: byName, prices: options.prices });
}

/** An in-memory store, closed when the test ends if `onTestFinished` is given. */
export function memoryStore() {
  return openSqliteStore({ home: ":memory:" });
}
