/**
 * WARP's action-level balanced sampling (AgentCPM-Report Appendix A.5): a trajectory holds one
 * INITIALIZE, one TERMINATE, a few EXPANDs and many SEARCHes and WRITEs, while the rare actions
 * (planning, decision-making) are the hard ones; training samples are drawn so that each action
 * gets the share its weight asks for.
 *
 * Each draw picks an action with probability w_a / Σ w (over the actions with a positive weight
 * that the pool holds — an absent action's weight is spread over the others), then one of that
 * action's items uniformly, with replacement, from a seeded generator: the same seed gives the
 * same sample. The paper gives no weights; they are the caller's.
 */

import { DossierError } from "../../core/errors.ts";
import { seededRandom } from "../seeded-random.ts";

/** Options of {@link balancedSample}. */
export interface BalancedSampleOptions<T> {
  /** The action of an item. */
  actionOf: (item: T) => string;
  /** Target share per action (any positive scale; normalised). An action without a weight is never drawn. */
  weights: Readonly<Record<string, number>>;
  /** Draws. */
  n: number;
  seed: number;
}

/** `n` items drawn with replacement so that actions follow their weights (see the module comment). */
export function balancedSample<T>(items: readonly T[], options: BalancedSampleOptions<T>): T[] {
  const { actionOf, weights, n, seed } = options;
  if (!Number.isInteger(n) || n < 0)
    throw new DossierError("INPUT_INVALID", `draws must be a whole number ≥ 0, got ${n}`);
  for (const [action, w] of Object.entries(weights))
    if (!(w >= 0) || !Number.isFinite(w))
      throw new DossierError("INPUT_INVALID", `weight of ${action} must be ≥ 0`);
  const pools = new Map<string, T[]>();
  for (const item of items) {
    const action = actionOf(item);
    if (!((weights[action] ?? 0) > 0)) continue;
    const pool = pools.get(action);
    if (pool) pool.push(item);
    else pools.set(action, [item]);
  }
  const actions = [...pools.keys()];
  const total = actions.reduce((sum, a) => sum + weights[a]!, 0);
  if (n > 0 && actions.length === 0)
    throw new DossierError("INPUT_INVALID", "no item has an action with a positive weight");
  const random = seededRandom(seed);
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    let x = random() * total;
    let action = actions[actions.length - 1]!;
    for (const a of actions) {
      x -= weights[a]!;
      if (x < 0) {
        action = a;
        break;
      }
    }
    const pool = pools.get(action)!;
    out.push(pool[Math.floor(random() * pool.length)]!);
  }
  return out;
}
