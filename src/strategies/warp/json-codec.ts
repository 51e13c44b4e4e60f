/**
 * The shape of warp's JSON protocol (`protocol: json`, any model): each action is one request
 * rebuilt from the state — the action's instructions as the system prompt, one user message, the
 * run's sampling of the role (sampling.ts) — whose answer is structured output of the action's schema. The schema states
 * every rule of the action (a refinement where JSON Schema cannot), so a reply that breaks one is
 * refused by structured output and re-asked with the reason; a valid value only becomes the
 * action.
 */

import type { ZodType } from "zod";
import { type CodecRequest, decoded, type JsonCodec } from "../../kit/protocol/codec.ts";
import type { Role } from "../../llm/model-spec.ts";
import type { RoleSampling } from "../../llm/role-sampling.ts";
import { callSampling } from "./sampling.ts";

/** The protocol's name on its codecs. */
export const WARP_JSON = "warp-json";

/** One request of the JSON protocol. */
export interface JsonAsk<V> {
  role: Role;
  schema: ZodType<V>;
  system: string;
  prompt: string;
  maxOutputTokens: number;
}

/** The request of `ask` with the run's sampling of its role (its output cap under the stated one). */
export function jsonRequest<V>(
  ask: JsonAsk<V>,
  sampling: RoleSampling,
): CodecRequest & { schema: ZodType<V> } {
  const { prompt, ...rest } = ask;
  return {
    ...rest,
    messages: [{ role: "user", content: prompt }],
    ...callSampling(sampling, ask.role, ask.maxOutputTokens),
  };
}

/** A codec of the JSON protocol: `request` renders the state, `action` reads a valid value. */
export function warpJsonCodec<S, A, V>(
  request: (state: S) => CodecRequest & { schema: ZodType<V> },
  action: (value: V, state: S) => A,
): JsonCodec<S, A, V> {
  return { kind: "json", name: WARP_JSON, request, decode: (value, state) => decoded(action(value, state)) };
}
