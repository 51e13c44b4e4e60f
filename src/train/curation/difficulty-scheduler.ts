/**
 * MindDR's dynamic data difficulty (§4.5, §5.2): at fixed intervals the policy is evaluated on a
 * validation set, ORM accuracy is computed per difficulty bin, and the next batch's sampling
 * proportions are adjusted "targeting an ORM accuracy of 10%–50%": below 10% a bin is too hard
 * (rewards too sparse), above 50% too easy (saturated).
 *
 * The paper gives no update rule; ours: a bin inside the zone keeps its weight, a bin outside
 * it has its weight multiplied by `shrink` (default 0.5), a bin with no validation verdict keeps
 * its weight; the weights are renormalised and every bin keeps at least `floor` (default 0.05)
 * so it can still be measured. When every bin is outside the zone the proportions do not move —
 * the data needs new bins, not a new mix. The expected batch accuracy Σ p_b·acc_b is reported.
 */

import { DossierError } from "../../core/errors.ts";

/** One validation verdict. */
export interface DifficultyVerdict {
  bin: string;
  correct: boolean;
}

/** Options of {@link nextDifficultyMix}. */
export interface DifficultyOptions {
  /** The target ORM accuracy, inclusive. Default [0.1, 0.5]. */
  zone?: readonly [number, number];
  /** Multiplier of a bin outside the zone. Default 0.5. */
  shrink?: number;
  /** Least share of a bin. Default 0.05. */
  floor?: number;
}

/** The next batch's mix. */
export interface DifficultyMix {
  proportions: Record<string, number>;
  /** ORM accuracy per bin (null: no verdict). */
  accuracy: Record<string, number | null>;
  /** Whether each bin's accuracy is in the zone (null: no verdict). */
  inZone: Record<string, boolean | null>;
  /** Σ p_b·acc_b over the bins with a verdict, renormalised to them (null: none). */
  expectedAccuracy: number | null;
}

/** ORM accuracy per bin. */
export function binAccuracy(verdicts: readonly DifficultyVerdict[]): Map<string, number> {
  const counts = new Map<string, { n: number; correct: number }>();
  for (const v of verdicts) {
    const c = counts.get(v.bin) ?? { n: 0, correct: 0 };
    c.n++;
    if (v.correct) c.correct++;
    counts.set(v.bin, c);
  }
  return new Map([...counts].map(([bin, c]) => [bin, c.correct / c.n]));
}

/** Raises every share below `floor` to it, taking the difference from the others proportionally. */
function applyFloor(shares: Map<string, number>, floor: number): Map<string, number> {
  const out = new Map(shares);
  const fixed = new Set<string>();
  for (;;) {
    const low = [...out].filter(([b, p]) => !fixed.has(b) && p < floor);
    if (low.length === 0) return out;
    for (const [b] of low) fixed.add(b);
    const free = [...out].filter(([b]) => !fixed.has(b));
    const freeTotal = free.reduce((s, [, p]) => s + p, 0);
    const left = 1 - fixed.size * floor;
    for (const b of fixed) out.set(b, floor);
    for (const [b, p] of free) out.set(b, freeTotal > 0 ? (p / freeTotal) * left : left / free.length);
  }
}

/** The next batch's proportions from the current ones and the validation verdicts. */
export function nextDifficultyMix(
  current: Readonly<Record<string, number>>,
  verdicts: readonly DifficultyVerdict[],
  options: DifficultyOptions = {},
): DifficultyMix {
  const [low, high] = options.zone ?? [0.1, 0.5];
  const shrink = options.shrink ?? 0.5;
  const floor = options.floor ?? 0.05;
  const bins = Object.keys(current);
  if (bins.length === 0) throw new DossierError("INPUT_INVALID", "no difficulty bin");
  if (bins.some((b) => !(current[b]! >= 0)) || bins.every((b) => current[b] === 0))
    throw new DossierError("INPUT_INVALID", "proportions must be ≥ 0 and not all 0");
  if (!(floor >= 0 && floor * bins.length <= 1))
    throw new DossierError("INPUT_INVALID", `floor ${floor} is too high`);
  const acc = binAccuracy(verdicts);
  const accuracy: Record<string, number | null> = {};
  const inZone: Record<string, boolean | null> = {};
  for (const b of bins) {
    const a = acc.get(b);
    accuracy[b] = a ?? null;
    inZone[b] = a === undefined ? null : a >= low && a <= high;
  }
  const anyIn = bins.some((b) => inZone[b] !== false);
  const weighted = new Map(bins.map((b) => [b, current[b]! * (anyIn && inZone[b] === false ? shrink : 1)]));
  const total = [...weighted.values()].reduce((a, b) => a + b, 0);
  const proportions = applyFloor(new Map([...weighted].map(([b, w]) => [b, w / total])), floor);
  const measured = bins.filter((b) => accuracy[b] !== null);
  const measuredShare = measured.reduce((s, b) => s + proportions.get(b)!, 0);
  return {
    proportions: Object.fromEntries(proportions),
    accuracy,
    inZone,
    expectedAccuracy:
      measured.length === 0 || measuredShare === 0
        ? null
        : measured.reduce((s, b) => s + proportions.get(b)! * accuracy[b]!, 0) / measuredShare,
  };
}
