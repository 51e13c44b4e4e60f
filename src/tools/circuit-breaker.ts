/**
 * A circuit breaker per provider: opens after consecutive failures, refuses calls while open,
 * lets one trial call through after a cool-down (half-open), and closes again on success.
 */

/** Breaker settings. */
export interface BreakerPolicy {
  /** Consecutive failed calls that open the breaker. */
  failureThreshold: number;
  /** Time the breaker stays open before a trial call is allowed. */
  cooldownMs: number;
}

/** Defaults: opens after 5 consecutive failures, half-opens after 30 s. */
export const DEFAULT_BREAKER_POLICY: BreakerPolicy = { failureThreshold: 5, cooldownMs: 30_000 };

/** Breaker state. */
export type BreakerState = "closed" | "open" | "half-open";

/** One provider's breaker. */
export class CircuitBreaker {
  readonly policy: BreakerPolicy;
  #failures = 0;
  #openedAt: number | null = null;
  #trialInFlight = false;

  constructor(policy: BreakerPolicy = DEFAULT_BREAKER_POLICY) {
    this.policy = policy;
  }

  /** The state at time `nowMs`. */
  state(nowMs: number): BreakerState {
    if (this.#openedAt === null) return "closed";
    return nowMs - this.#openedAt >= this.policy.cooldownMs ? "half-open" : "open";
  }

  /** Whether a call may start now; in half-open state only one trial call at a time. */
  tryAcquire(nowMs: number): boolean {
    const state = this.state(nowMs);
    if (state === "closed") return true;
    if (state === "open" || this.#trialInFlight) return false;
    this.#trialInFlight = true;
    return true;
  }

  /** Records a successful call: the breaker closes. */
  onSuccess(): void {
    this.#failures = 0;
    this.#openedAt = null;
    this.#trialInFlight = false;
  }

  /** Records a failed call: opens at the threshold, or re-opens after a failed trial. */
  onFailure(nowMs: number): void {
    this.#failures++;
    if (this.#trialInFlight || this.#failures >= this.policy.failureThreshold) this.#openedAt = nowMs;
    this.#trialInFlight = false;
  }

  /** Gives back a trial slot of a call that never reached the provider (no verdict). */
  release(): void {
    this.#trialInFlight = false;
  }

  /** Consecutive failures so far. */
  get failures(): number {
    return this.#failures;
  }
}
