/**
 * What the tool gateway holds per provider: its policy, the queue that applies its concurrency
 * and rate limits, its circuit breaker and the successes counted toward raising an adaptive limit.
 */

import type PQueue from "p-queue";
import { lazyModule } from "../core/lazy-module.ts";
import { CircuitBreaker } from "./circuit-breaker.ts";
import type { ProviderPolicy } from "./provider-policy.ts";

/** p-queue, loaded when the first provider queue is made. */
const pQueue = lazyModule<typeof import("p-queue")>("p-queue");

/** One provider's state in a gateway. */
export interface ProviderState {
  policy: ProviderPolicy;
  queue: PQueue;
  breaker: CircuitBreaker;
  /** Successes since the adaptive limit last changed. */
  successes: number;
}

/** A provider's fresh state under `policy`: its queue at the policy's concurrency and rate. */
export function providerState(policy: ProviderPolicy): ProviderState {
  const queue = new (pQueue().default)({
    concurrency: policy.concurrency,
    ...(policy.ratePerSecond ? rateLimit(policy.ratePerSecond) : {}),
  });
  return { policy, queue, breaker: new CircuitBreaker(policy.breaker), successes: 0 };
}

/** The queue options of a rate: a cap per second, or below one per second one call per interval. */
function rateLimit(perSecond: number): { intervalCap: number; interval: number; strict?: boolean } {
  if (perSecond >= 1) return { intervalCap: perSecond, interval: 1000 };
  return { intervalCap: 1, interval: Math.round(1000 / perSecond), strict: true };
}
