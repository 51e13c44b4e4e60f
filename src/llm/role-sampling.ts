/**
 * Per-role sampling defaults: the temperature, top-p and output cap a strategy's paper or
 * released code states for each kind of call. The LLM client fills a request's unset fields
 * from them, so every call of a role is sent with its stated sampling; a request that sets a
 * field keeps its own value.
 */

import type { GenerateRequest } from "./client.ts";
import type { Role } from "./model-spec.ts";

/** Sampling of one kind of call; an absent field is the provider's default. */
export interface CallSampling {
  temperature?: number;
  topP?: number;
  /** Output cap per call. */
  maxOutputTokens?: number;
}

/** Sampling defaults per role. */
export type RoleSampling = Partial<Record<Role, CallSampling>>;

/** The request with its unset sampling fields filled from the role's defaults. */
export function withRoleSampling(request: GenerateRequest, table: RoleSampling | undefined): GenerateRequest {
  const defaults = table?.[request.role];
  if (!defaults) return request;
  return {
    ...request,
    ...(request.temperature === undefined && defaults.temperature !== undefined
      ? { temperature: defaults.temperature }
      : {}),
    ...(request.topP === undefined && defaults.topP !== undefined ? { topP: defaults.topP } : {}),
    ...(request.maxOutputTokens === undefined && defaults.maxOutputTokens !== undefined
      ? { maxOutputTokens: defaults.maxOutputTokens }
      : {}),
  };
}

/**
 * A table with the user's `temperature` / `topP` over every role's defaults (the strategy
 * options that override the stated sampling).
 */
export function overrideSampling(
  table: RoleSampling,
  user: { temperature?: number | undefined; topP?: number | undefined },
): RoleSampling {
  const out: RoleSampling = {};
  for (const [role, sampling] of Object.entries(table) as [Role, CallSampling][]) {
    out[role] = {
      ...sampling,
      ...(user.temperature === undefined ? {} : { temperature: user.temperature }),
      ...(user.topP === undefined ? {} : { topP: user.topP }),
    };
  }
  return out;
}
