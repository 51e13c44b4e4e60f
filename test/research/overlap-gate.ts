/**
 * Gates that pin overlaps without timing: the scripted model holds some answers back until other
 * calls have arrived. When the strategy overlaps what the test says it does, every awaited call
 * arrives while the held ones wait; when it runs them one after another, the held call blocks
 * the awaited one, a safety timeout releases it, and the test fails on the `timedOut` flag — not
 * on a duration.
 */

import type { RecordedRequest } from "../fake-openai/types.ts";
import type { ChatBody } from "./model-script.ts";
import { systemText, userText } from "./replies.ts";

/** A request as the gates see it. */
export interface SeenRequest {
  system: string;
  user: string;
}

/** A gate: its `hold` goes into the world's `hold` option (see {@link holdAll}). */
export interface OverlapGate {
  hold: (request: SeenRequest) => Promise<void>;
  /** True when the safety timeout had to release a held call. */
  readonly timedOut: boolean;
}

function gateState(safetyMs: number) {
  let timedOut = false;
  let release!: () => void;
  const open = new Promise<void>((r) => {
    release = r;
  });
  return {
    get timedOut() {
      return timedOut;
    },
    release,
    wait: async () => {
      const timer = setTimeout(() => {
        timedOut = true;
        release();
      }, safetyMs);
      await open;
      clearTimeout(timer);
    },
  };
}

/**
 * Holds every call that `held` matches until `count` calls that `awaited` matches have arrived:
 * the awaited calls do not wait for the held ones to return.
 */
export function heldUntil(
  held: (r: SeenRequest) => boolean,
  awaited: (r: SeenRequest) => boolean,
  count = 1,
  safetyMs = 20_000,
): OverlapGate {
  const state = gateState(safetyMs);
  let seen = 0;
  return {
    get timedOut() {
      return state.timedOut;
    },
    hold: async (r) => {
      if (awaited(r) && ++seen >= count) state.release();
      if (held(r) && seen < count) await state.wait();
    },
  };
}

/** The world's `hold` option running every gate on each request. */
export function holdAll(...gates: OverlapGate[]): (request: RecordedRequest) => Promise<void> {
  return async (request) => {
    const body = request.body as ChatBody;
    const seen = { system: systemText(body), user: userText(body) };
    await Promise.all(gates.map((g) => g.hold(seen)));
  };
}
