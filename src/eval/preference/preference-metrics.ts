/**
 * Preference metrics (seed: query-specific rubrics, Appendix E) over (query, preferred, rejected)
 * triples scored by any scorer S:
 *
 * - preference accuracy = (1/N) Σ 𝟙[S(preferred) > S(rejected)] — a tie counts as a miss, as in
 *   the seed; `auc` is the same with a tie counted as ½ (the Mann–Whitney convention for a
 *   pairwise AUC), reported alongside;
 * - paired Cohen's d = mean(Δ) / sd(Δ) with Δ = S(preferred) − S(rejected) and sd the sample
 *   standard deviation (n − 1 denominator).
 *
 * A pair with an unknown score (a failed scorer) is not scored and is counted in `skipped`.
 */

/** Scores of one triple; null when the scorer failed. */
export interface ScoredPair {
  id: string;
  preferred: number | null;
  rejected: number | null;
}

/** Paired effect size. */
export interface PairedEffect {
  /** Number of differences. */
  n: number;
  mean: number | null;
  /** Sample standard deviation (n − 1); null with fewer than 2 differences. */
  sd: number | null;
  /** mean / sd; null when sd is null or 0. */
  d: number | null;
}

/** Preference metrics of a scorer. */
export interface PreferenceMetrics {
  /** Pairs with both scores known. */
  n: number;
  /** Pairs with a missing score. */
  skipped: number;
  wins: number;
  ties: number;
  losses: number;
  /** wins / n (ties count as misses); null when n = 0. */
  accuracy: number | null;
  /** (wins + ties / 2) / n; null when n = 0. */
  auc: number | null;
  effect: PairedEffect;
}

/** mean(Δ) / sd(Δ) with the sample standard deviation. */
export function pairedCohensD(deltas: readonly number[]): PairedEffect {
  const n = deltas.length;
  if (n === 0) return { n, mean: null, sd: null, d: null };
  const mean = deltas.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, sd: null, d: null };
  const variance = deltas.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1);
  const sd = Math.sqrt(variance);
  return { n, mean, sd, d: sd > 0 ? mean / sd : null };
}

/** Accuracy, AUC and paired Cohen's d of scored pairs. */
export function preferenceMetrics(pairs: readonly ScoredPair[]): PreferenceMetrics {
  const known = pairs.filter(
    (p): p is { id: string; preferred: number; rejected: number } =>
      typeof p.preferred === "number" && typeof p.rejected === "number",
  );
  const deltas = known.map((p) => p.preferred - p.rejected);
  const wins = deltas.filter((d) => d > 0).length;
  const ties = deltas.filter((d) => d === 0).length;
  const n = known.length;
  return {
    n,
    skipped: pairs.length - n,
    wins,
    ties,
    losses: n - wins - ties,
    accuracy: n ? wins / n : null,
    auc: n ? (wins + ties / 2) / n : null,
    effect: pairedCohensD(deltas),
  };
}
