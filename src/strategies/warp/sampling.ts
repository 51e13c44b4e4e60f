/**
 * Sampling of the WARP policy's model calls. In the native protocol the paper's setting is the
 * default (AgentCPM-Report's generation settings: temperature 0.7, top-p 0.8, at most 2,048
 * output tokens per call); in the JSON protocol the provider's defaults stand, since that
 * protocol serves any model, some of which refuse a temperature. A user's `temperature` or
 * `topP` overrides either.
 */

/** The warp protocols. */
export const WARP_PROTOCOLS = ["json", "native"] as const;
/** A warp protocol. */
export type WarpProtocol = (typeof WARP_PROTOCOLS)[number];

/** Sampling parameters of one call; an absent one is the provider's default. */
export interface Sampling {
  temperature?: number;
  topP?: number;
}

/** The paper's sampling for the native protocol. */
export const NATIVE_SAMPLING = { temperature: 0.7, topP: 0.8 } as const;
/** The paper's output cap per call in the native protocol. */
export const NATIVE_MAX_OUTPUT_TOKENS = 2048;

/** The sampling of a run: the user's settings over the protocol's defaults. */
export function warpSampling(protocol: WarpProtocol, user: Sampling = {}): Sampling {
  const base: Sampling = protocol === "native" ? { ...NATIVE_SAMPLING } : {};
  return {
    ...base,
    ...(user.temperature === undefined ? {} : { temperature: user.temperature }),
    ...(user.topP === undefined ? {} : { topP: user.topP }),
  };
}
