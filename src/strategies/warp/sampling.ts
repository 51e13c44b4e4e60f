/**
 * Sampling of the WARP policy's model calls, per role: AgentCPM-Report's generation settings
 * (temperature 0.7, top-p 0.8) for every call of the policy — searcher, planner and writer — in
 * either protocol, with the released code's cap of 2,048 output tokens per call in the native
 * protocol (the JSON protocol's structured answers keep their own caps). A user's `temperature`
 * or `topP` option overrides the stated values. The strategy definition states this table
 * (`sampling`), and the policy's codecs send the same values on every request. The page reader,
 * the rubric generator and the judge are not the policy: their sampling is their own.
 */

import type { Role } from "../../llm/model-spec.ts";
import { type CallSampling, overrideSampling, type RoleSampling } from "../../llm/role-sampling.ts";

/** The warp protocols. */
export const WARP_PROTOCOLS = ["json", "native"] as const;
/** A warp protocol. */
export type WarpProtocol = (typeof WARP_PROTOCOLS)[number];

/** The user's sampling options; an absent one leaves the stated value. */
export interface Sampling {
  temperature?: number | undefined;
  topP?: number | undefined;
}

/** The released code's sampling of every policy call. */
export const WARP_SAMPLING = { temperature: 0.7, topP: 0.8 } as const;
/** The released code's output cap per call, stated for the native protocol. */
export const NATIVE_MAX_OUTPUT_TOKENS = 2048;
/** The roles of the WARP policy. */
export const POLICY_ROLES = ["searcher", "planner", "writer"] as const satisfies readonly Role[];

/** The policy's sampling per role for a protocol, the user's settings over the stated ones. */
export function warpRoleSampling(options: { protocol: WarpProtocol } & Sampling): RoleSampling {
  const call: CallSampling = {
    ...WARP_SAMPLING,
    ...(options.protocol === "native" ? { maxOutputTokens: NATIVE_MAX_OUTPUT_TOKENS } : {}),
  };
  const table: RoleSampling = Object.fromEntries(POLICY_ROLES.map((role) => [role, { ...call }]));
  return overrideSampling(table, { temperature: options.temperature, topP: options.topP });
}

/** The sampling of one role's calls: the table's temperature and top-p, its cap under `cap`. */
export function callSampling(table: RoleSampling, role: Role, cap?: number): CallSampling {
  const stated = table[role] ?? {};
  const most = [cap, stated.maxOutputTokens].filter((n): n is number => n !== undefined);
  return {
    ...(stated.temperature === undefined ? {} : { temperature: stated.temperature }),
    ...(stated.topP === undefined ? {} : { topP: stated.topP }),
    ...(most.length ? { maxOutputTokens: Math.min(...most) } : {}),
  };
}
