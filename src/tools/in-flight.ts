/**
 * Calls under way, by key, so that an identical call made meanwhile can wait for the first
 * one's outcome instead of repeating it (single flight). Only the call that claimed a key
 * settles it; settling twice, or after another call claimed the key anew, changes nothing.
 */

/** What the waiting calls learn: the value, or that the call failed. */
export type FlightOutcome = { ok: true; value: unknown } | { ok: false };

/** The calls under way. */
export class InFlight {
  readonly #pending = new Map<string, Promise<FlightOutcome>>();

  /** The outcome of the call under way with this key, if there is one. */
  pending(key: string): Promise<FlightOutcome> | undefined {
    return this.#pending.get(key);
  }

  /**
   * Claims `key` for a call about to start, unless another call holds it. Returns the function
   * that settles it (a no-op when nothing was claimed).
   */
  claim(key: string): (outcome: FlightOutcome) => void {
    if (this.#pending.has(key)) return () => {};
    let resolve: ((outcome: FlightOutcome) => void) | undefined;
    const flight = new Promise<FlightOutcome>((r) => {
      resolve = r;
    });
    this.#pending.set(key, flight);
    return (outcome) => {
      const settle = resolve;
      if (!settle) return;
      resolve = undefined;
      if (this.#pending.get(key) === flight) this.#pending.delete(key);
      settle(outcome);
    };
  }
}
