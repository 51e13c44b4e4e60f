/**
 * The seed's total step cap (`max_step`, 140): every model call the WARP policy makes counts as
 * a step, a re-asked or re-sampled answer included, and when the steps are spent the run stops
 * exploring and writes its report from the draft so far (stop reason `step-cap`). Page reading
 * and draft scoring are not policy steps.
 */

/** Policy steps of a run by default (the seed's `max_step`). */
export const DEFAULT_MAX_STEPS = 140;

/**
 * The native protocol's extend budget (the seed's `max_extend_step`): entering the deepening
 * spends one, so does each failed deepening answer.
 */
export const NATIVE_EXTEND_BUDGET = 5;

/** Counts the policy's model calls against the cap. */
export class StepMeter {
  readonly max: number;
  #used = 0;

  constructor(max: number) {
    this.max = max;
  }

  /** Steps made so far. */
  get used(): number {
    return this.#used;
  }

  /** Steps left (never below 0). */
  left(): number {
    return Math.max(0, this.max - this.#used);
  }

  /** True when no step is left. */
  spent(): boolean {
    return this.left() === 0;
  }

  /** Counts `n` model calls. */
  spend(n: number): void {
    this.#used += Math.max(0, n);
  }
}
